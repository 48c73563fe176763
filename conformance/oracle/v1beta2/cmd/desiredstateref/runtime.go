//go:build capirender_runtime

package main

// The Runtime SDK side of the oracle, built only inside a copy of the Cluster API module
// (conformance/oracle-runtime.sh), where its internal runtime client can be imported:
// the ExtensionConfigs among the inputs are pointed at --extension NAME=URL (trusting
// --extension-ca), discovered and registered by Cluster API's own client; the
// ClusterClass controller's own reconcileVariables calls DiscoverVariables.

import (
	"context"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterclass"
	runtimeclient "sigs.k8s.io/cluster-api/exp/runtime/client"
	internalclient "sigs.k8s.io/cluster-api/internal/runtime/client"
	runtimeregistry "sigs.k8s.io/cluster-api/internal/runtime/registry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// extensionFlags are --extension NAME=URL and --extension-ca FILE.
var extensionURLs = map[string]string{}
var extensionCA string

func runtimeFlag(args []string, i int) (int, bool) {
	switch args[i] {
	case "--extension":
		if i+1 < len(args) {
			n, u, ok := strings.Cut(args[i+1], "=")
			if !ok {
				fail(fmt.Errorf("--extension %s: expected NAME=URL", args[i+1]))
			}
			extensionURLs[n] = u
			return i + 1, true
		}
	case "--extension-ca":
		if i+1 < len(args) {
			extensionCA = args[i+1]
			return i + 1, true
		}
	}
	return i, false
}

// setupRuntime discovers the extensions of the ExtensionConfigs among objs and returns
// Cluster API's runtime client over them (nil without ExtensionConfigs), and the
// remaining objects.
func setupRuntime(ctx context.Context, objs []*unstructured.Unstructured, c client.Client) (runtimeclient.Client, []*unstructured.Unstructured, error) {
	var rest []*unstructured.Unstructured
	var exts []*runtimev1.ExtensionConfig
	for _, u := range objs {
		if u.GetKind() != "ExtensionConfig" {
			rest = append(rest, u)
			continue
		}
		u.SetAPIVersion(runtimev1.GroupVersion.String())
		u.SetNamespace("")
		ext := &runtimev1.ExtensionConfig{}
		if err := toTyped(u, ext); err != nil {
			return nil, nil, err
		}
		exts = append(exts, ext)
	}
	if len(exts) == 0 {
		return nil, rest, nil
	}
	var ca []byte
	if extensionCA != "" {
		var err error
		if ca, err = os.ReadFile(extensionCA); err != nil {
			return nil, nil, err
		}
	}
	cat := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(cat); err != nil {
		return nil, nil, err
	}
	reg := runtimeregistry.New()
	rc, _, err := internalclient.New(ctx, internalclient.Options{Catalog: cat, Registry: reg, Client: c})
	if err != nil {
		return nil, nil, err
	}
	var discovered []runtimev1.ExtensionConfig
	for _, ext := range exts {
		// The ExtensionConfig webhook's defaulting: no selector matches every namespace.
		if ext.Spec.NamespaceSelector == nil {
			ext.Spec.NamespaceSelector = &metav1.LabelSelector{}
		}
		if u, ok := extensionURLs[ext.Name]; ok {
			ext.Spec.ClientConfig.URL = u
			ext.Spec.ClientConfig.Service = runtimev1.ServiceReference{}
		}
		if len(ca) > 0 {
			ext.Spec.ClientConfig.CABundle = ca
		}
		d, err := rc.Discover(ctx, ext)
		if err != nil {
			return nil, nil, err
		}
		discovered = append(discovered, *d)
	}
	if err := rc.WarmUp(&runtimev1.ExtensionConfigList{Items: discovered}); err != nil {
		return nil, nil, err
	}
	return rc, rest, nil
}

// reconcileVariables runs the ClusterClass controller's reconcileVariables (our accessor
// in the copied module, _capi-additions/) with the runtime client.
func reconcileVariables(ctx context.Context, rc runtimeclient.Client, cc *clusterv1.ClusterClass) error {
	return clusterclass.ReconcileVariablesForOracle(ctx, rc, cc)
}
