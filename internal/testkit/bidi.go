package testkit

// RawBidiTarget holds a raw right-to-left override: it shows as
// "https://repo.example.org/exe.jpg".
const RawBidiTarget = "https://repo.example.org/\u202Egpj.exe"
