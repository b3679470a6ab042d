package caddytest

import "github.com/caddy-ark/caddy-ark/resolve"

// Resolutions is the series of caddy_ark_resolutions_total for outcome o.
func Resolutions(o resolve.Outcome) string {
	return `caddy_ark_resolutions_total{outcome="` + o.String() + `"}`
}

// TableLoads is the series of caddy_ark_table_loads_total for a trigger and
// result.
func TableLoads(trigger, result string) string {
	return `caddy_ark_table_loads_total{result="` + result + `",trigger="` + trigger + `"}`
}
