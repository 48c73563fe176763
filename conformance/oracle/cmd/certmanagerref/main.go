// certmanagerref prints the objects clusterctl v1.10.10 installs for cert-manager, as
// its own code creates them: `cluster.New(...).CertManager().EnsureInstalled` against a
// fake management cluster (controller-runtime's fake client, a REST mapper that knows
// the manifest's kinds but not cert-manager's Issuer/Certificate, so the "already
// installed?" probe fails and the install runs), then every manifest object read back
// from the fake cluster in manifest order, without the fake client's resourceVersion.
//
// Usage: certmanagerref CLUSTERCTL_CONFIG  (its cert-manager section names a local
// release; the config is read by clusterctl's own config client).
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/yaml"

	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/cluster"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/config"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
)

type proxy struct{ c client.Client }

func (p *proxy) GetConfig() (*rest.Config, error)                 { return &rest.Config{}, nil }
func (p *proxy) CurrentNamespace() (string, error)                { return "default", nil }
func (p *proxy) ValidateKubernetesVersion() error                 { return nil }
func (p *proxy) NewClient(context.Context) (client.Client, error) { return p.c, nil }
func (p *proxy) CheckClusterAvailable(context.Context) error      { return nil }
func (p *proxy) ListResources(context.Context, map[string]string, ...string) ([]unstructured.Unstructured, error) {
	return nil, nil
}
func (p *proxy) GetContexts(string) ([]string, error) { return nil, nil }
func (p *proxy) GetResourceNames(context.Context, string, string, []client.ListOption, string) ([]string, error) {
	return nil, nil
}

var clusterScoped = map[string]bool{
	"Namespace": true, "CustomResourceDefinition": true, "ClusterRole": true,
	"ClusterRoleBinding": true, "MutatingWebhookConfiguration": true,
	"ValidatingWebhookConfiguration": true, "APIService": true,
}

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "certmanagerref:", err)
		os.Exit(1)
	}
}

func run(cfgPath string) error {
	ctx := context.Background()
	cfg, err := config.New(ctx, cfgPath)
	if err != nil {
		return err
	}
	cm, err := cfg.CertManager().Get()
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(strings.TrimPrefix(cm.URL(), "file://"))
	if err != nil {
		return err
	}
	manifest, err := utilyaml.ToUnstructured(raw)
	if err != nil {
		return err
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	add := func(gvk schema.GroupVersionKind) {
		scope := meta.RESTScopeNamespace
		if clusterScoped[gvk.Kind] {
			scope = meta.RESTScopeRoot
		}
		mapper.Add(gvk, scope)
	}
	add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	for _, o := range manifest {
		add(o.GroupVersionKind())
	}
	// A cluster without cert-manager does not serve cert-manager.io: the probe's Issuer
	// and Certificate cannot be created, before or after the install.
	noCertManagerAPI := interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if obj.GetObjectKind().GroupVersionKind().Group == "cert-manager.io" {
				return &meta.NoKindMatchError{GroupKind: obj.GetObjectKind().GroupVersionKind().GroupKind()}
			}
			return c.Create(ctx, obj, opts...)
		},
	}
	c := fake.NewClientBuilder().WithScheme(runtime.NewScheme()).WithRESTMapper(mapper).
		WithInterceptorFuncs(noCertManagerAPI).Build()
	once := func(ctx context.Context, _, _ time.Duration, cond wait.ConditionWithContextFunc) error {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("not ready")
		}
		return nil
	}
	cl := cluster.New(cluster.Kubeconfig{}, cfg, cluster.InjectProxy(&proxy{c}), cluster.InjectPollImmediateWaiter(once))
	// The install succeeds; the readiness wait then fails (no cert-manager runs here).
	if err := cl.CertManager().EnsureInstalled(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "certmanagerref: EnsureInstalled (expected to fail only at the readiness wait):", err)
	}
	var docs []string
	for _, o := range manifest {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(o.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetName()}, got); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("%s %s/%s was not installed", o.GetKind(), o.GetNamespace(), o.GetName())
			}
			return err
		}
		unstructured.RemoveNestedField(got.Object, "metadata", "resourceVersion")
		b, err := yaml.Marshal(got.Object)
		if err != nil {
			return err
		}
		docs = append(docs, string(b))
	}
	fmt.Print(strings.Join(docs, "---\n"))
	return nil
}
