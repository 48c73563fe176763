// clusterctl v1.14.2, built from the Go module proxy. The module's go.mod has replace
// directives (`sigs.k8s.io/cluster-api/api => ./api`), so `go install ...@v1.14.2` is
// refused; this wrapper module requires sigs.k8s.io/cluster-api and
// sigs.k8s.io/cluster-api/api at v1.14.2 and runs the release's own command, with the
// same imports as cmd/clusterctl/main.go. conformance/run.sh builds it outside the
// checkout; it is the reference of `generate` and `init` (capi-render's default,
// `--clusterctl-version v1.14`).
package main

import (
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"sigs.k8s.io/cluster-api/cmd/clusterctl/cmd"
)

func main() { cmd.Execute() }
