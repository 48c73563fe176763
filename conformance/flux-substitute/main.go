// flux-substitute: Flux's own build and variable substitution of a directory, as
// kustomize-controller does it for a Kustomization with postBuild: kustomize build
// (github.com/fluxcd/pkg/kustomize SecureBuild), then SubstituteVariables on every
// resource with the variables of VARS.json (a JSON object of strings, what the
// substituteFrom Secret's data decodes to). Prints the result as one YAML stream.
//
//	flux-substitute DIR VARS.json
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: flux-substitute DIR VARS.json")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "flux-substitute:", err)
		os.Exit(1)
	}
}

func run(dir, varsPath string) error {
	raw, err := os.ReadFile(varsPath)
	if err != nil {
		return err
	}
	vars := map[string]interface{}{}
	if err := json.Unmarshal(raw, &vars); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	m, err := kustomize.SecureBuild(abs, abs, false)
	if err != nil {
		return err
	}
	// The variables inline (postBuild.substitute): SubstituteVariables then needs no
	// cluster to read the Secret from; the substitution itself is the same code.
	ks := unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind":       "Kustomization",
		"metadata":   map[string]interface{}{"name": "unit", "namespace": "flux-system"},
		"spec":       map[string]interface{}{"postBuild": map[string]interface{}{"substitute": vars}},
	}}
	for _, res := range m.Resources() {
		if _, err := kustomize.SubstituteVariables(context.Background(), nil, ks, res,
			kustomize.SubstituteWithDryRun(true)); err != nil {
			return fmt.Errorf("%s %s: %w", res.GetKind(), res.GetName(), err)
		}
	}
	out, err := m.AsYaml()
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}
