module github.com/podwatch/podwatch

go 1.26.0

require (
	github.com/fxamacker/cbor/v2 v2.9.1
	github.com/google/go-cmp v0.7.0
	github.com/json-iterator/go v1.1.12
	golang.org/x/net v0.61.0
	sigs.k8s.io/yaml v1.6.0
)

require (
	github.com/modern-go/concurrent v0.0.0-20180228061459-e0a39a4cb421 // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/text v0.43.0 // indirect
)
