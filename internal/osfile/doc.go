// Package osfile opens the files an operator names (tables, stores, import
// sources) safely, refusing at once what is not a regular file, and tells a
// file from the one that replaced it by its identity. It imports nothing from
// this module.
package osfile
