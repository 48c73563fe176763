//! Go `text/template` with sprig's hermetic functions, as ClusterClass
//! `valueFrom.template` patches use it (topology.md §6, §11):
//! `template.New("tpl").Funcs(sprig.HermeticTxtFuncMap()).Parse(t)` then
//! `Execute` with the variables decoded from JSON (numbers are float64,
//! missing map keys print `<no value>`).
//!
//! lex → parse (node tree, Go's parse errors) → exec (Go's evaluation and
//! error texts) with fmt (Go's printing), builtins (text/template's own
//! functions), sprig (the function map) and semver (Masterminds semver v3).

mod budget;
mod builtins;
mod exec;
mod fields;
pub mod fmt;
mod func;
mod funcs;
mod lex;
mod methods;
mod parse;
pub mod semver;
mod sprig;
pub mod value;

use std::rc::Rc;

use serde_json::Value as Json;

use crate::error::{Error, Result};

/// The template name CAPI gives every patch template.
const NAME: &str = "tpl";

/// How a template is set up: `template.New(name)`, with or without
/// `.Funcs(sprig.HermeticTxtFuncMap())`, with or without `.Option("missingkey=error")`.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    pub name: &'a str,
    pub sprig: bool,
    pub missing_key_error: bool,
}

impl Default for Options<'_> {
    /// CAPI's patch templates (`valueFrom.template`, `enabledIf`).
    fn default() -> Self {
        Options {
            name: NAME,
            sprig: true,
            missing_key_error: false,
        }
    }
}

/// Execute `template` (Go text/template syntax) with `data` as dot, Go's way:
/// numbers are float64, a missing map key prints `<no value>`. Errors carry
/// Go's text (`template: tpl:1:3: executing "tpl" at <...>: ...`).
pub fn execute(template: &str, data: &Json) -> Result<String> {
    execute_with(template, data, &Options::default())
}

/// `Parse` alone: Go's parse error, if any (unknown functions included).
pub fn parse_check(template: &str, o: &Options) -> Result<()> {
    parse_with(template, o).map(|_| ())
}

/// `Parse`, then the top-level fields the template reads from its data (`.x` where
/// dot is the data, `$.x`), sorted: for `lint`'s declared-variable check.
pub fn root_fields(template: &str, o: &Options) -> Result<Vec<String>> {
    let t = parse_with(template, o)?;
    // The main template only: a `define`d one's dot is what its caller passes.
    let trees: Vec<&Vec<parse::Node>> = t.trees.get(o.name).into_iter().collect();
    Ok(fields::root_fields(&trees).into_iter().collect())
}

fn parse_with(template: &str, o: &Options) -> Result<parse::Templates> {
    let has = |f: &str| {
        if o.sprig {
            funcs::exists(f)
        } else {
            funcs::lookup_builtin(f).is_some()
        }
    };
    parse::parse(o.name, template, &has).map_err(Error::new)
}

/// `Parse` then `Execute` with the given set-up.
pub fn execute_with(template: &str, data: &Json, o: &Options) -> Result<String> {
    execute_data(template, &Data::from_json(data), o)
}

/// Template data converted once from JSON, for executing several templates with the
/// same dot (one topology patch item's variables).
pub struct Data(value::Value);

impl Data {
    pub fn from_json(j: &Json) -> Data {
        Data(value::Value::from_json(j))
    }

    /// [`Data::from_json`] of a JSON object given as its map.
    pub fn from_map(m: &serde_json::Map<String, Json>) -> Data {
        Fields::from_map(m).data()
    }
}

/// The top-level fields of a map dot, each converted from JSON once, so that several
/// [`Data`] can share them (a Cluster's variables under each topology patch item's
/// own): a clone copies the field list, not the values (they are reference counted).
#[derive(Clone, Default)]
pub struct Fields(std::collections::BTreeMap<String, value::Value>);

impl Fields {
    pub fn from_map(m: &serde_json::Map<String, Json>) -> Fields {
        Fields(
            m.iter()
                .map(|(k, v)| (k.clone(), value::Value::from_json(v)))
                .collect(),
        )
    }

    /// Field `k` set to `v` (replacing it).
    pub fn set(&mut self, k: &str, v: &Json) {
        self.0.insert(k.to_string(), value::Value::from_json(v));
    }

    /// `extra`'s entries set into the map held by field `k`, replacing its own; as
    /// [`Fields::set`] of the JSON object with `extra` merged in. Nothing changes when
    /// `k` holds no map.
    pub fn merge_into(&mut self, k: &str, extra: &serde_json::Map<String, Json>) {
        if let Some(value::Value::Map(m, _)) = self.0.get_mut(k) {
            let m = Rc::make_mut(m);
            for (ek, ev) in extra {
                m.insert(ek.clone(), value::Value::from_json(ev));
            }
        }
    }

    /// The map of these fields as the dot.
    pub fn data(self) -> Data {
        Data(value::Value::map(self.0))
    }
}

/// Parsed templates cached per thread, by text and then (name, sprig): the templates
/// of a ClusterClass are the same for every Cluster of it. At most [`CACHE_ENTRIES`]
/// texts and [`CACHE_BYTES`] bytes of them; then the cache starts over.
type ParseCache = std::collections::HashMap<String, Vec<((String, bool), Rc<parse::Templates>)>>;

const CACHE_ENTRIES: usize = 4096;
const CACHE_BYTES: usize = 8 << 20;

thread_local! {
    static PARSED: std::cell::RefCell<(ParseCache, usize)> = Default::default();
}

fn parse_cached(template: &str, o: &Options) -> Result<Rc<parse::Templates>> {
    let hit = PARSED.with(|c| {
        c.borrow().0.get(template).and_then(|v| {
            v.iter()
                .find(|((n, s), _)| n == o.name && *s == o.sprig)
                .map(|(_, t)| t.clone())
        })
    });
    if let Some(t) = hit {
        return Ok(t);
    }
    let t = Rc::new(parse_with(template, o)?);
    PARSED.with(|c| {
        let (map, bytes) = &mut *c.borrow_mut();
        if map.len() >= CACHE_ENTRIES || *bytes + template.len() > CACHE_BYTES {
            map.clear();
            *bytes = 0;
        }
        *bytes += template.len();
        map.entry(template.to_string())
            .or_default()
            .push(((o.name.to_string(), o.sprig), t.clone()));
    });
    Ok(t)
}

/// `Parse` then `Execute` with already converted data (the parse is cached).
pub fn execute_data(template: &str, data: &Data, o: &Options) -> Result<String> {
    let tmpls = parse_cached(template, o)?;
    let l = crate::limits::Limits::current();
    let eo = exec::ExecOptions {
        sprig: o.sprig,
        missing_key_error: o.missing_key_error,
        max_steps: l.template_steps,
        max_bytes: l.template_bytes,
    };
    exec::execute(template, o.name, &tmpls, data.0.clone(), eo).map_err(Error::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits;
    use serde_json::json;

    fn run(t: &str, d: Json) -> String {
        match execute(t, &d) {
            Ok(s) => s,
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn census_idioms() {
        let d =
            json!({"enabled": true, "builtin": {"controlPlane": {"version": "v1.30.2"}}, "n": 3});
        assert_eq!(run("{{ if .enabled }}true{{ end }}", d.clone()), "true");
        assert_eq!(run("{{ .missing }}", d.clone()), "<no value>");
        assert_eq!(run("{{ .n }}", d.clone()), "3");
        assert_eq!(
            run(
                "{{ $v := semver .builtin.controlPlane.version }}{{ printf \"v%d.%d\" $v.Major $v.Minor }}",
                d.clone()
            ),
            "v1.30"
        );
        assert_eq!(
            run(
                "{{ semverCompare \"< v1.25\" .builtin.controlPlane.version }}",
                d.clone()
            ),
            "false"
        );
    }

    #[test]
    fn errors_carry_go_context() {
        assert_eq!(
            run("{{ eq .n 3 }}", json!({"n": 3})),
            "ERR template: tpl:1:3: executing \"tpl\" at <eq .n 3>: error calling eq: incompatible types for comparison: float64 and int"
        );
        assert_eq!(
            run("{{ .z.a }}", json!({"z": null})),
            "ERR template: tpl:1:5: executing \"tpl\" at <.z.a>: nil pointer evaluating interface {}.a"
        );
    }

    #[test]
    fn deep_input_does_not_crash() {
        let t = "{{ if 1 }}".repeat(100_000);
        assert!(execute(&t, &json!({})).is_err());
        let t = format!(
            "{}{}",
            "{{ define \"a\" }}{{ template \"a\" }}{{ end }}", "{{ template \"a\" }}"
        );
        assert!(execute(&t, &json!({})).is_err());
    }

    /// A template that fails naming the output limit, without building the result.
    fn over_output_limit(t: &str, d: Json) {
        let out = run(t, d);
        assert!(out.starts_with("ERR "), "{t}: {}", limits::excerpt(&out));
        assert!(out.contains("template output limit"), "{t}: {out}");
        assert!(out.contains("--max-template-bytes"), "{t}: {out}");
    }

    #[test]
    fn string_builders_are_sized_before_they_are_built() {
        let lines = "x\n".repeat(100_000);
        let big = "a".repeat(1 << 20);
        let d = json!({"lines": lines, "big": big});
        // 100,000 lines × 1,000 blanks: 100 MB.
        over_output_limit("{{ indent 1000 .lines }}", d.clone());
        over_output_limit("{{ nindent 1000 .lines }}", d.clone());
        assert_eq!(run("{{ nindent 2 \"a\\nb\" }}", json!({})), "\n  a\n  b");
        // Every `a` of a megabyte replaced by 1,000 bytes: 1 GB.
        over_output_limit("{{ replace \"a\" (repeat 1000 \"b\") .big }}", d.clone());
        over_output_limit(
            "{{ replace \"\" \"0123456789abcdefghij\" .big }}",
            d.clone(),
        );
        over_output_limit(
            "{{ regexReplaceAll \"\" .big \"0123456789abcdefghij\" }}",
            d.clone(),
        );
        over_output_limit(
            "{{ regexReplaceAll \"a\" .big (repeat 100 \"$0\") }}",
            d.clone(),
        );
        // A list concatenated with itself doubles, within the step limit.
        over_output_limit(
            "{{ $l := list 1 }}{{ range until 30 }}{{ $l = concat $l $l }}{{ end }}{{ len $l }}",
            json!({}),
        );
        assert_eq!(
            run("{{ concat (list 1) (list 2 3) }}", json!({})),
            "[1 2 3]"
        );
        // A long separator between many elements: 100,000 × 1,000 bytes.
        over_output_limit("{{ join (repeat 1000 \"x\") (until 100000) }}", json!({}));
        assert_eq!(run("{{ join \", \" (list 1 \"a\") }}", json!({})), "1, a");
    }

    #[test]
    fn deeply_nested_values_are_refused_not_overflowing_the_stack() {
        // A list nested 8,000 deep, then printed, compared or converted: each recursion
        // is refused at the nesting limit (this runs on a test thread's 2 MiB stack, as
        // small as a rayon worker's default).
        let build = "{{ $x := list }}{{ range until 8000 }}{{ $x = list $x }}{{ end }}";
        for use_ in [
            "{{ $x }}",
            "{{ print $x }}",
            "{{ printf \"%v\" $x }}",
            "{{ toString $x }}",
            "{{ eq $x $x }}",
            "{{ toPrettyJson $x }}",
        ] {
            let out = run(&format!("{build}{use_}"), json!({}));
            assert!(out.starts_with("ERR "), "{use_}: {}", limits::excerpt(&out));
            assert!(
                out.contains("over the template value nesting limit of 1000 levels"),
                "{use_}: {out}"
            );
        }
        // Values up to the limit print.
        let ok =
            "{{ $x := list }}{{ range until 998 }}{{ $x = list $x }}{{ end }}{{ len (print $x) }}";
        assert_eq!(run(ok, json!({})), "1998");
    }
}
