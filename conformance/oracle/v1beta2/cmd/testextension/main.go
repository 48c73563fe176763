// Command testextension is the Runtime SDK extension capi-render's external-patch
// conformance runs against: Cluster API v1.14.2's own runtime server
// (exp/runtime/server, the one real extensions are built on) with handlers written with
// its topologymutation helpers. It serves over TLS on a loopback port with a
// certificate it writes to --cert-dir (tls.crt and tls.key, signed by the CA in ca.crt,
// which the client trusts).
//
// Handlers (Discovery lists them as <name>.<extensionconfig name> to the client):
//
//	discover-variables   lbImageRepository (string, default "kindest"), imageTag (string,
//	                     required), replicasCap (integer, minimum 1)
//	generate-patches     DockerClusterTemplate: spec.template.spec.loadBalancer.imageRepository
//	                     = lbImageRepository; DockerMachineTemplate (and DevMachineTemplate):
//	                     spec.template.spec.customImage = kindest/node:<imageTag>-<version of
//	                     the holder>; KubeadmControlPlaneTemplate: the API server certSANs
//	                     get "capi-render.invalid". The setting patchFormat=merge answers
//	                     with JSON merge patches instead of JSON patches.
//	validate-topology    fails when builtin.controlPlane.replicas is above replicasCap
//
// Usage: testextension --port N --cert-dir DIR
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimecatalog "sigs.k8s.io/cluster-api/api/runtime/catalog"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
	"sigs.k8s.io/cluster-api/exp/runtime/server"
	"sigs.k8s.io/cluster-api/exp/runtime/topologymutation"
)

func main() {
	port := flag.Int("port", 0, "loopback port to serve on")
	certDir := flag.String("cert-dir", "", "directory for tls.crt, tls.key and ca.crt")
	flag.Parse()
	if *port <= 0 || *certDir == "" {
		fail("usage: testextension --port N --cert-dir DIR")
	}
	if err := writeCert(*certDir); err != nil {
		fail("certificate: %v", err)
	}
	catalog := runtimecatalog.New()
	if err := runtimehooksv1.AddToCatalog(catalog); err != nil {
		fail("catalog: %v", err)
	}
	srv, err := server.New(server.Options{Catalog: catalog, Host: "127.0.0.1", Port: *port, CertDir: *certDir})
	if err != nil {
		fail("server: %v", err)
	}
	handlers := []server.ExtensionHandler{
		{Hook: runtimehooksv1.DiscoverVariables, Name: "discover-variables", HandlerFunc: discoverVariables},
		{Hook: runtimehooksv1.GeneratePatches, Name: "generate-patches", HandlerFunc: generatePatches},
		{Hook: runtimehooksv1.ValidateTopology, Name: "validate-topology", HandlerFunc: validateTopology},
	}
	for _, h := range handlers {
		if err := srv.AddExtensionHandler(h); err != nil {
			fail("handler %s: %v", h.Name, err)
		}
	}
	if err := srv.Start(context.Background()); err != nil {
		fail("serve: %v", err)
	}
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "testextension: "+format+"\n", args...)
	os.Exit(1)
}

// writeCert writes a CA (ca.crt) and a serving certificate it signed for 127.0.0.1, ::1
// and localhost (tls.crt, tls.key): clients check the chain as for a real extension.
func writeCert(dir string) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "capi-render test extension CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "capi-render test extension"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"ca.crt":  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		"tls.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		"tls.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func discoverVariables(_ context.Context, _ *runtimehooksv1.DiscoverVariablesRequest, resp *runtimehooksv1.DiscoverVariablesResponse) {
	resp.Variables = []clusterv1.ClusterClassVariable{
		{
			Name:     "lbImageRepository",
			Required: ptr.To(false),
			Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{
				Type:    "string",
				Default: &apiextensionsv1.JSON{Raw: []byte(`"kindest"`)},
			}},
		},
		{
			Name:     "imageTag",
			Required: ptr.To(true),
			Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{
				Type:    "string",
				Example: &apiextensionsv1.JSON{Raw: []byte(`"v1"`)},
			}},
		},
		{
			Name:     "replicasCap",
			Required: ptr.To(false),
			Schema: clusterv1.VariableSchema{OpenAPIV3Schema: clusterv1.JSONSchemaProps{
				Type:    "integer",
				Minimum: ptr.To[int64](1),
			}},
		},
	}
	resp.Status = runtimehooksv1.ResponseStatusSuccess
}

func generatePatches(ctx context.Context, req *runtimehooksv1.GeneratePatchesRequest, resp *runtimehooksv1.GeneratePatchesResponse) {
	format := runtimehooksv1.JSONPatchType
	if req.Settings["patchFormat"] == "merge" {
		format = runtimehooksv1.JSONMergePatchType
	}
	// The unstructured decoder decodes every template, whatever its kind.
	topologymutation.WalkTemplates(ctx, unstructured.UnstructuredJSONScheme, req, resp,
		func(_ context.Context, obj runtime.Object, vars map[string]apiextensionsv1.JSON, holder runtimehooksv1.HolderReference) error {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return fmt.Errorf("not unstructured: %T", obj)
			}
			return mutate(u, vars, holder)
		}, topologymutation.PatchFormat{Format: format})
}

func mutate(u *unstructured.Unstructured, vars map[string]apiextensionsv1.JSON, holder runtimehooksv1.HolderReference) error {
	switch u.GetKind() {
	case "DockerClusterTemplate", "DevClusterTemplate":
		repo, err := topologymutation.GetStringVariable(vars, "lbImageRepository")
		if err != nil {
			return err
		}
		path := []string{"spec", "template", "spec", "loadBalancer", "imageRepository"}
		if u.GetKind() == "DevClusterTemplate" {
			path = []string{"spec", "template", "spec", "backend", "docker", "loadBalancer", "imageRepository"}
		}
		return unstructured.SetNestedField(u.Object, repo, path...)
	case "DockerMachineTemplate", "DevMachineTemplate":
		tag, err := topologymutation.GetStringVariable(vars, "imageTag")
		if err != nil {
			return err
		}
		versionVar := "builtin.machineDeployment.version"
		switch holder.Kind {
		case "KubeadmControlPlane":
			versionVar = "builtin.controlPlane.version"
		case "MachinePool":
			versionVar = "builtin.machinePool.version"
		}
		version, err := topologymutation.GetStringVariable(vars, versionVar)
		if err != nil {
			return err
		}
		image := "kindest/node:" + tag + "-" + version
		path := []string{"spec", "template", "spec", "customImage"}
		if u.GetKind() == "DevMachineTemplate" {
			path = []string{"spec", "template", "spec", "backend", "docker", "customImage"}
		}
		return unstructured.SetNestedField(u.Object, image, path...)
	case "KubeadmControlPlaneTemplate":
		path := []string{"spec", "template", "spec", "kubeadmConfigSpec", "clusterConfiguration", "apiServer", "certSANs"}
		sans, _, err := unstructured.NestedStringSlice(u.Object, path...)
		if err != nil {
			return err
		}
		return unstructured.SetNestedStringSlice(u.Object, append(sans, "capi-render.invalid"), path...)
	}
	return nil
}

func validateTopology(_ context.Context, req *runtimehooksv1.ValidateTopologyRequest, resp *runtimehooksv1.ValidateTopologyResponse) {
	globals := topologymutation.ToMap(req.Variables)
	capRaw, err := topologymutation.GetVariable(globals, "replicasCap")
	if err != nil {
		// No cap set: nothing to check.
		resp.Status = runtimehooksv1.ResponseStatusSuccess
		return
	}
	var limit int64
	if err := json.Unmarshal(capRaw.Raw, &limit); err != nil {
		resp.Status = runtimehooksv1.ResponseStatusFailure
		resp.Message = "replicasCap: " + err.Error()
		return
	}
	for _, item := range req.Items {
		vars, err := topologymutation.MergeVariableMaps(globals, topologymutation.ToMap(item.Variables))
		if err != nil {
			resp.Status = runtimehooksv1.ResponseStatusFailure
			resp.Message = err.Error()
			return
		}
		raw, err := topologymutation.GetVariable(vars, "builtin.controlPlane.replicas")
		if err != nil {
			continue
		}
		replicas, err := strconv.ParseInt(string(raw.Raw), 10, 64)
		if err != nil {
			continue
		}
		if replicas > limit {
			resp.Status = runtimehooksv1.ResponseStatusFailure
			resp.Message = fmt.Sprintf("the control plane has %d replicas, more than replicasCap %d", replicas, limit)
			return
		}
	}
	resp.Status = runtimehooksv1.ResponseStatusSuccess
}
