module memory-service/sdk/go

// The versions Debian 12 packages (golang-google-grpc-dev, golang-google-protobuf-dev), which this
// repository builds and tests against offline (GOPATH mode, see README.md). Any newer release works.
go 1.19

require (
	google.golang.org/grpc v1.33.3
	google.golang.org/protobuf v1.28.1
)
