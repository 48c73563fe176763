// Copied by conformance/operator-customize.sh into a scratch copy of
// sigs.k8s.io/cluster-api-operator (OPERATOR_VERSION) as
// internal/controller/zz_capi_render_oracle.go: the customisation functions are
// unexported, so the oracle reaches them through these exported wrappers. Not part of
// any module of ours.

package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	configclient "sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/repository"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"

	operatorv1 "sigs.k8s.io/cluster-api-operator/api/v1alpha2"
	"sigs.k8s.io/cluster-api-operator/util"
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

// CapiRenderOracleFetch runs the whole Fetch phase on a components text as the
// operator does once it has read it from its source: the config client the Initialize
// phase builds (an in-memory reader holding the config Secret's variables and the
// provider under a placeholder URL), the options of the Load phase, clusterctl's
// NewComponents, then the three AlterComponents steps.
func CapiRenderOracleFetch(ctx context.Context, provider operatorv1.GenericProvider, variables map[string]string,
	version string, raw []byte, overrides configclient.Client,
) ([]unstructured.Unstructured, error) {
	mr := configclient.NewMemoryReader()
	if err := mr.Init(ctx, ""); err != nil {
		return nil, err
	}

	for k, v := range variables {
		mr.Set(k, v)
	}

	ptype := util.ClusterctlProviderType(provider)
	if _, err := mr.AddProvider(provider.ProviderName(), ptype, fakeURL); err != nil {
		return nil, err
	}

	cc, err := configclient.New(ctx, "", configclient.InjectReader(mr))
	if err != nil {
		return nil, err
	}

	pc, err := cc.Providers().Get(provider.ProviderName(), ptype)
	if err != nil {
		return nil, err
	}

	components, err := repository.NewComponents(repository.ComponentsInput{
		Provider:     pc,
		ConfigClient: cc,
		Processor:    yamlprocessor.NewSimpleProcessor(),
		RawYaml:      raw,
		Options: repository.ComponentsOptions{
			TargetNamespace:     provider.GetNamespace(),
			SkipTemplateProcess: false,
			Version:             version,
		},
	})
	if err != nil {
		return nil, err
	}

	if err := repository.AlterComponents(components, customizeObjectsFn(provider)); err != nil {
		return nil, err
	}

	if err := repository.AlterComponents(components, applyPatches(ctx, provider)); err != nil {
		return nil, err
	}

	if err := repository.AlterComponents(components, imageOverrides(components.ManifestLabel(), overrides)); err != nil {
		return nil, err
	}

	return components.Objs(), nil
}
