// celdump prints the function declarations of the CEL environment apiextensions-apiserver
// v0.32.3 compiles new x-kubernetes-validations rules in (cel-go v0.22.0), one overload a line.
package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/cel-go/common/types"
	"k8s.io/apiserver/pkg/cel/environment"
)

func enc(t *types.Type) string {
	switch t.Kind() {
	case types.TypeParamKind:
		return "?" + t.TypeName()
	case types.ListKind, types.MapKind, types.TypeKind, types.OpaqueKind:
		ps := []string{}
		for _, p := range t.Parameters() {
			ps = append(ps, enc(p))
		}
		prefix := ""
		if t.Kind() == types.OpaqueKind {
			prefix = "@"
		}
		if len(ps) == 0 {
			return prefix + t.TypeName()
		}
		return prefix + t.TypeName() + "(" + strings.Join(ps, ",") + ")"
	case types.StructKind:
		return "%" + t.TypeName()
	case types.AnyKind:
		return "any"
	case types.DurationKind:
		return "duration"
	case types.TimestampKind:
		return "timestamp"
	case types.NullTypeKind:
		return "null_type"
	case types.DynKind:
		return "dyn"
	}
	return t.TypeName()
}

func main() {
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion(), true)
	env := envSet.NewExpressionsEnv()
	fns := env.Functions()
	names := []string{}
	for n := range fns {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, o := range fns[n].OverloadDecls() {
			args := []string{}
			for _, a := range o.ArgTypes() {
				args = append(args, enc(a))
			}
			kind := "global"
			if o.IsMemberFunction() {
				kind = "member"
			}
			fmt.Printf("%s\t%s\t%s\t%s\t%s\n", n, kind, o.ID(), strings.Join(args, " "), enc(o.ResultType()))
		}
	}
}
