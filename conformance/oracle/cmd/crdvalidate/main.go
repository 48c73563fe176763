// crdvalidate checks objects against their CustomResourceDefinitions the way the API
// server does when it creates them: structural defaulting, then the OpenAPI schema
// (types, formats, patterns, enums, required fields), unknown fields (which the server
// would prune, so a field the controller never sees), and the x-kubernetes-validations
// CEL rules, with apiextensions-apiserver's own code.
//
//	crdvalidate [-tsv] [-webhooks] CRD.yaml... -- OBJECTS.yaml...
//
// -webhooks: as an apply through Cluster API's defaulting webhooks (controller-runtime
// CustomDefaulters decode the object into its Go type and patch it to the re-encoding):
// the v1beta1 Cluster, MachineDeployment, MachineHealthCheck, MachinePool and
// KubeadmControlPlane(Template) are round-tripped through their Cluster API v1.10.10
// types (runtime.DefaultUnstructuredConverter) before the schema and the CEL rules see
// them; unknown fields are still those of the object as written (strict decoding comes
// before admission). An object the type cannot decode is validated as written (the
// webhook would refuse it). The webhooks' own defaults are not applied.
//
// The steps run in the API server's order (customresource_handler.go
// unstructuredSchemaCoercer.apply, then the strategy's validation): unknown metadata
// fields (objectmeta.GetObjectMetaWithOptions), pruning with unknown-field tracking,
// PruneNonNullableNullsWithoutDefaults, embedded resources' metadata
// (objectmeta.CoerceWithOptions), structural defaulting, then the OpenAPI schema and the
// CEL rules on that object. ObjectMeta's own validation (name format, ...) is not run.
//
// Prints one line per object file and every problem; exits 1 on any problem or on an
// object whose kind no CRD serves. With -tsv, one line per problem for a program:
// FILE<TAB>DOCUMENT<TAB>FIELD PATH<TAB>ERROR TYPE (`unknown field`, `Invalid value`, ...),
// and `FILE<TAB>DOCUMENT<TAB>-<TAB>no CRD` for a kind no CRD serves.
package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
		utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	clusterv1 "sigs.k8s.io/cluster-api/api/v1beta1"
	kcpv1 "sigs.k8s.io/cluster-api/controlplane/kubeadm/api/v1beta1"
	expv1 "sigs.k8s.io/cluster-api/exp/api/v1beta1"
	"sigs.k8s.io/yaml"
)

// typedFor is the Go type of the kinds whose defaulting webhook re-encodes them (what
// capi-render's validate::apply round-trips), nil for the others.
func typedFor(apiVersion, kind string) interface{} {
	switch apiVersion + "/" + kind {
	case "cluster.x-k8s.io/v1beta1/Cluster":
		return &clusterv1.Cluster{}
	case "cluster.x-k8s.io/v1beta1/MachineDeployment":
		return &clusterv1.MachineDeployment{}
	case "cluster.x-k8s.io/v1beta1/MachineHealthCheck":
		return &clusterv1.MachineHealthCheck{}
	case "cluster.x-k8s.io/v1beta1/MachinePool":
		return &expv1.MachinePool{}
	case "controlplane.cluster.x-k8s.io/v1beta1/KubeadmControlPlane":
		return &kcpv1.KubeadmControlPlane{}
	case "controlplane.cluster.x-k8s.io/v1beta1/KubeadmControlPlaneTemplate":
		return &kcpv1.KubeadmControlPlaneTemplate{}
	}
	return nil
}

// throughWebhook is obj as a defaulting webhook hands it on: its typed round trip, or
// obj itself when no webhook re-encodes its kind or its type cannot decode it.
func throughWebhook(obj map[string]interface{}) map[string]interface{} {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	typed := typedFor(av, k)
	if typed == nil {
		return obj
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return obj
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return obj
	}
	return u
}

type served struct {
	structural *structuralschema.Structural
	schema     validation.SchemaValidator
	cel        *cel.Validator
}

func docs(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := utilyaml.NewYAMLReader(bufioReader(data))
	var out [][]byte
	for {
		d, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(d)) > 0 && strings.TrimSpace(string(d)) != "---" {
			out = append(out, d)
		}
	}
}

func load(paths []string) (map[string]served, error) {
	out := map[string]served{}
	for _, p := range paths {
		ds, err := docs(p)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(d, &crd); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			if crd.Kind != "CustomResourceDefinition" {
				continue
			}
			for _, v := range crd.Spec.Versions {
				if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
					continue
				}
				var internal apiextensions.JSONSchemaProps
				if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
					return nil, err
				}
				s, err := structuralschema.NewStructural(&internal)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", crd.Name, v.Name, err)
				}
				sv, _, err := validation.NewSchemaValidator(&internal)
				if err != nil {
					return nil, err
				}
				key := crd.Spec.Group + "/" + v.Name + "/" + crd.Spec.Names.Kind
				out[key] = served{structural: s, schema: sv, cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}
			}
		}
	}
	return out, nil
}

func main() {
	args := os.Args[1:]
	tsv := len(args) > 0 && args[0] == "-tsv"
	if tsv {
		args = args[1:]
	}
	webhooks := len(args) > 0 && args[0] == "-webhooks"
	if webhooks {
		args = args[1:]
	}
	sep := -1
	for i, a := range args {
		if a == "--" {
			sep = i
		}
	}
	if sep < 1 {
		fmt.Fprintln(os.Stderr, "usage: crdvalidate CRD.yaml... -- OBJECTS.yaml...")
		os.Exit(2)
	}
	crds, err := load(args[:sep])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	problems := 0
	for _, p := range args[sep+1:] {
		ds, err := docs(p)
		if err != nil {
			fmt.Println(err)
			problems++
			continue
		}
		for i, d := range ds {
			// As the API server decodes a request body: whole numbers as int64
			// (k8s.io/apimachinery/pkg/util/json), not encoding/json's float64.
			var obj map[string]interface{}
			j, err := yaml.YAMLToJSON(d)
			if err == nil {
				err = utiljson.Unmarshal(j, &obj)
			}
			if err != nil {
				fmt.Printf("%s document %d: %v\n", p, i+1, err)
				problems++
				continue
			}
			u := &unstructured.Unstructured{Object: obj}
			gvk := u.GroupVersionKind()
			s, ok := crds[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]
			if !ok {
				if tsv {
					fmt.Printf("%s\t%d\t-\tno CRD\n", p, i+1)
				} else {
					fmt.Printf("%s document %d: no CRD serves %s\n", p, i+1, gvk)
				}
				problems++
				continue
			}
			at := fmt.Sprintf("%s document %d (%s %s)", p, i+1, gvk.Kind, u.GetName())
			report := func(path, typ, text string) {
				problems++
				if tsv {
					fmt.Printf("%s\t%d\t%s\t%s\n", p, i+1, path, typ)
				} else {
					fmt.Printf("%s: %s\n", at, text)
				}
			}
			unknownOpts := structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}
			_, _, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
			if err != nil {
				report("metadata", "Invalid value", err.Error())
			}
			unknown := append(metaUnknown, pruning.PruneWithOptions(obj, s.structural, true, unknownOpts)...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s.structural)
			ferr, embedded := schemaobjectmeta.CoerceWithOptions(nil, obj, s.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
			if ferr != nil {
				report(ferr.Field, ferr.Type.String(), ferr.Error())
			}
			unknown = append(unknown, embedded...)
			for _, f := range unknown {
				report(f, "unknown field", fmt.Sprintf("unknown field %q (the API server prunes it)", f))
			}
			if webhooks {
				// The schema and the rules see the webhook's re-encoding of the object as
				// written, then pruned and coerced as the API server does.
				var written map[string]interface{}
				if err := utiljson.Unmarshal(j, &written); err == nil {
					obj = throughWebhook(written)
					pruning.PruneWithOptions(obj, s.structural, true, structuralschema.UnknownFieldPathOptions{})
					structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s.structural)
					schemaobjectmeta.CoerceWithOptions(nil, obj, s.structural, false, schemaobjectmeta.CoerceOptions{})
				}
			}
			structuraldefaulting.Default(obj, s.structural)
			for _, e := range validation.ValidateCustomResource(nil, obj, s.schema) {
				report(e.Field, e.Type.String(), e.Error())
			}
			errs, _ := s.cel.Validate(context.Background(), nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
			for _, e := range errs {
				report(e.Field, e.Type.String(), e.Error())
			}
		}
		if !tsv {
			fmt.Printf("checked %s: %d objects\n", p, len(ds))
		}
	}
	if problems > 0 {
		if !tsv {
			fmt.Printf("%d problems\n", problems)
		}
		os.Exit(1)
	}
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }
