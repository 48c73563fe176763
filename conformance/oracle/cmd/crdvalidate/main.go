// crdvalidate checks objects against their CustomResourceDefinitions the way the API
// server does when it creates them: structural defaulting, then the OpenAPI schema
// (types, formats, patterns, enums, required fields), unknown fields (which the server
// would prune, so a field the controller never sees), and the x-kubernetes-validations
// CEL rules, with apiextensions-apiserver's own code.
//
//	crdvalidate [-tsv] CRD.yaml... -- OBJECTS.yaml...
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
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

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
