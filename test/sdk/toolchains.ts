import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

// Which optional toolchains this machine has, decided once when a test file loads, so tests that
// need one are registered as skipped with the reason in their title (visible in every report).

function works(command: string, args: readonly string[], env?: Record<string, string>): boolean {
  try {
    execFileSync(command, args, { stdio: "ignore", timeout: 30_000, env: { ...process.env, ...env } });
    return true;
  } catch {
    return false;
  }
}

/** A python3 with grpcio and protobuf ≥ 4.21 (Debian: python3-grpcio, python3-protobuf), or undefined. */
export const python: string | undefined = [process.env.PYTHON, "/usr/bin/python3", "python3"]
  .filter((p): p is string => Boolean(p))
  .find((p) =>
    works(p, [
      "-c",
      "import grpc, google.protobuf as p; assert tuple(map(int, p.__version__.split('.')[:2])) >= (4, 21)",
    ]),
  );

export const PYTHON_MISSING =
  "skipped: no python3 with grpcio and protobuf>=4.21 (apt-get install python3-grpcio python3-protobuf; .ci/run does)";

/** The Debian plugins buf.gen.sdk.yaml names. */
export const sdkPlugins = ["protoc", "protoc-gen-go", "protoc-gen-go-grpc", "grpc_python_plugin"].every((p) =>
  works("sh", ["-c", `command -v ${p}`]),
);

export const PLUGINS_MISSING =
  "skipped: protoc, protoc-gen-go, protoc-gen-go-grpc or grpc_python_plugin missing (Debian packages protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc, protobuf-compiler-grpc; .ci/run installs them)";

const GOCODE = "/usr/share/gocode/src";

/**
 * Go with grpc-go and golang/protobuf ≥ 1.4 from Debian (golang-go, golang-google-grpc-dev,
 * golang-github-golang-protobuf-1-5-dev): the Go SDK builds offline in GOPATH mode against them.
 */
export const go: boolean =
  works("go", ["version"]) &&
  existsSync(`${GOCODE}/google.golang.org/grpc/server.go`) &&
  existsSync(`${GOCODE}/google.golang.org/protobuf/proto/proto.go`) &&
  existsSync(`${GOCODE}/github.com/golang/protobuf/proto/registry.go`);

export const GO_MISSING =
  "skipped: no go with Debian's grpc-go and golang/protobuf>=1.4 (apt-get install golang-go golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev; .ci/run does)";
