// A module outside podwatch that uses it as a library: it proves that the
// README's example and a decoder of another kind compile with podwatch's public
// packages alone (an internal package cannot be imported from here). make test
// runs its tests (make test-external).
module example.com/podwatchuser

go 1.26.0

require github.com/podwatch/podwatch v0.0.0

require (
	github.com/fxamacker/cbor/v2 v2.9.1 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/modern-go/concurrent v0.0.0-20180228061459-e0a39a4cb421 // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/podwatch/podwatch => ../..
