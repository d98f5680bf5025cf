//go:build race

package main

// raceEnabled makes TestMain build the binary under test with -race too, so
// data races in the server process fail the tests (exit status 66).
const raceEnabled = true
