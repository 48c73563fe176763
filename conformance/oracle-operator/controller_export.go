// Copied by conformance/operator-customize.sh into a scratch copy of
// sigs.k8s.io/cluster-api-operator@v0.28.0 as internal/controller/zz_capi_render_oracle.go:
// the customisation functions are unexported, so the oracle reaches them through this
// one exported wrapper. Not part of any module of ours.

package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	configclient "sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"

	operatorv1 "sigs.k8s.io/cluster-api-operator/api/v1alpha2"
)

// CapiRenderOracleCustomize runs the three AlterComponents steps of the Fetch phase
// (phase_fetch.go) in the operator's order: customizeObjectsFn, applyPatches,
// imageOverrides.
func CapiRenderOracleCustomize(ctx context.Context, provider operatorv1.GenericProvider, component string,
	overrides configclient.Client, objs []unstructured.Unstructured,
) ([]unstructured.Unstructured, error) {
	objs, err := customizeObjectsFn(provider)(objs)
	if err != nil {
		return nil, err
	}

	objs, err = applyPatches(ctx, provider)(objs)
	if err != nil {
		return nil, err
	}

	return imageOverrides(component, overrides)(objs)
}
