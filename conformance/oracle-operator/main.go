// capi-render-oracle: cluster-api-operator's own customisation code (the version
// conformance/operator-customize.sh names) run over one fixture of
// fixtures/operator-customize or fixtures/operator-fetch. Built by conformance/operator-customize.sh
// inside a scratch copy of the operator module (as cmd/capi-render-oracle), next to
// controller_export.go.
//
// Usage: capi-render-oracle FIXTURE.yaml OUT.json
//
// The fixture's first YAML document is the case header:
//
//	provider: {kind: InfrastructureProvider, name: docker, namespace: capd-system,
//	           manifestLabel: infrastructure-docker, uid: some-uid}
//	spec: {...}          # v1alpha2 ProviderSpec, defaults already applied
//	images: {...}        # optional: the operator's clusterctl.yaml `images:`
//
// the other documents are the objects clusterctl's components pipeline produced. OUT
// gets {"objects": [...]} or {"error": "..."}.
//
// A header with `fetch: {version: v1.2.3, variables: {KEY: value}}` asks for the whole
// Fetch phase instead: everything after the header's `---` line is the provider's raw
// components text, given to clusterctl's NewComponents with the config Secret's
// variables, then customised (phase_fetch.go).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	configclient "sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
	"sigs.k8s.io/yaml"

	operatorv1 "sigs.k8s.io/cluster-api-operator/api/v1alpha2"
	"sigs.k8s.io/cluster-api-operator/internal/controller"
)

type header struct {
	Provider struct {
		Kind          string `json:"kind"`
		Name          string `json:"name"`
		Namespace     string `json:"namespace"`
		ManifestLabel string `json:"manifestLabel"`
		UID           string `json:"uid"`
	} `json:"provider"`
	Spec   json.RawMessage `json:"spec"`
	Images json.RawMessage `json:"images"`
	Fetch  *struct {
		Version   string            `json:"version"`
		Variables map[string]string `json:"variables"`
	} `json:"fetch"`
}

func provider(h header, spec operatorv1.ProviderSpec) (operatorv1.GenericProvider, error) {
	meta := metav1.ObjectMeta{Name: h.Provider.Name, Namespace: h.Provider.Namespace, UID: types.UID(h.Provider.UID)}
	tm := metav1.TypeMeta{APIVersion: operatorv1.GroupVersion.String(), Kind: h.Provider.Kind}

	switch h.Provider.Kind {
	case "CoreProvider":
		return &operatorv1.CoreProvider{TypeMeta: tm, ObjectMeta: meta, Spec: operatorv1.CoreProviderSpec{ProviderSpec: spec}}, nil
	case "BootstrapProvider":
		return &operatorv1.BootstrapProvider{TypeMeta: tm, ObjectMeta: meta, Spec: operatorv1.BootstrapProviderSpec{ProviderSpec: spec}}, nil
	case "ControlPlaneProvider":
		return &operatorv1.ControlPlaneProvider{TypeMeta: tm, ObjectMeta: meta, Spec: operatorv1.ControlPlaneProviderSpec{ProviderSpec: spec}}, nil
	case "InfrastructureProvider":
		return &operatorv1.InfrastructureProvider{TypeMeta: tm, ObjectMeta: meta, Spec: operatorv1.InfrastructureProviderSpec{ProviderSpec: spec}}, nil
	case "AddonProvider":
		return &operatorv1.AddonProvider{TypeMeta: tm, ObjectMeta: meta, Spec: operatorv1.AddonProviderSpec{ProviderSpec: spec}}, nil
	case "IPAMProvider":
		return &operatorv1.IPAMProvider{TypeMeta: tm, ObjectMeta: meta, Spec: operatorv1.IPAMProviderSpec{ProviderSpec: spec}}, nil
	case "RuntimeExtensionProvider":
		return &operatorv1.RuntimeExtensionProvider{TypeMeta: tm, ObjectMeta: meta, Spec: operatorv1.RuntimeExtensionProviderSpec{ProviderSpec: spec}}, nil
	}

	return nil, fmt.Errorf("unknown provider kind %q", h.Provider.Kind)
}

func run(fixture string) (interface{}, error) {
	raw, err := os.ReadFile(fixture)
	if err != nil {
		return nil, err
	}

	// The header is the first document; in fetch mode the rest is raw text.
	head, components := raw, []byte{}
	if i := bytes.Index(raw, []byte("\n---\n")); i >= 0 {
		head, components = raw[:i+1], raw[i+5:]
	}

	docs, err := utilyaml.ToUnstructured(head)
	if err != nil {
		return nil, err
	}

	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no header document", fixture)
	}

	if _, fetch := docs[0].Object["fetch"]; !fetch {
		if docs, err = utilyaml.ToUnstructured(raw); err != nil {
			return nil, err
		}
	}

	hj, err := json.Marshal(docs[0].Object)
	if err != nil {
		return nil, err
	}

	var h header
	if err := json.Unmarshal(hj, &h); err != nil {
		return nil, err
	}

	// The API server hands the operator JSON; decode the spec the same way.
	var spec operatorv1.ProviderSpec
	if len(h.Spec) > 0 && string(h.Spec) != "null" {
		if err := json.Unmarshal(h.Spec, &spec); err != nil {
			return nil, err
		}
	}

	p, err := provider(h, spec)
	if err != nil {
		return nil, err
	}

	// The operator reads /config/clusterctl.yaml when it exists (phase_initialize.go).
	var overrides configclient.Client

	if len(h.Images) > 0 && string(h.Images) != "null" {
		dir, err := os.MkdirTemp("", "capi-render-oracle")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)

		imagesYAML, err := yaml.JSONToYAML([]byte(`{"images":` + string(h.Images) + `}`))
		if err != nil {
			return nil, err
		}

		path := filepath.Join(dir, "clusterctl.yaml")
		if err := os.WriteFile(path, imagesYAML, 0o600); err != nil {
			return nil, err
		}

		overrides, err = configclient.New(context.Background(), path)
		if err != nil {
			return nil, err
		}
	}

	var objs []unstructured.Unstructured
	if h.Fetch != nil {
		objs, err = controller.CapiRenderOracleFetch(context.Background(), p, h.Fetch.Variables, h.Fetch.Version, components, overrides)
	} else {
		objs, err = controller.CapiRenderOracleCustomize(context.Background(), p, h.Provider.ManifestLabel, overrides, docs[1:])
	}

	if err != nil {
		return map[string]interface{}{"error": err.Error()}, nil
	}

	out := make([]interface{}, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Object)
	}

	return map[string]interface{}{"objects": out}, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: capi-render-oracle FIXTURE.yaml OUT.json")
		os.Exit(2)
	}

	result, err := run(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}

	data, err := json.MarshalIndent(result, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	if err := os.WriteFile(os.Args[2], append(data, '\n'), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
