//! The walker: one pass over an unstructured value and its Go type that yields what
//! `ToUnstructured(FromUnstructured(v))` yields, or the error FromUnstructured returns.
//!
//! Two decoding regimes exist in Go and both are modelled:
//! * **converter** (`runtime.DefaultUnstructuredConverter`): reflection over the struct,
//!   field by field in declaration order; the first error aborts;
//! * **json** (`k8s.io/apimachinery/pkg/util/json.Unmarshal`, i.e. sigs.k8s.io/json,
//!   case-sensitive): used inside the custom UnmarshalJSON of `JSONSchemaPropsOrBool`,
//!   `-OrArray` and `-OrStringArray`. Keys are visited in sorted order (the input was
//!   `json.Marshal`ed from a map); type mismatches are remembered and decoding goes on,
//!   the first one is reported; errors of nested custom unmarshalers abort. On the way
//!   back the value went through `json.Marshal` and apimachinery's number-preserving
//!   `unmarshal`, so every float that is an integer comes back as an int64.

use serde_json::{Map, Value};

use super::gotime::parse_rfc3339;
use super::model::{Field, Kind, Model, Special, Ty};
use super::quantity::{self, ERR_FORMAT_WRONG};
use crate::go::base64::{decode as base64_decode, encode as base64_encode};
use crate::go::json::{normalize_number, normalize_numbers, number_text};

/// A Go `json.UnmarshalTypeError`.
#[derive(Debug, Clone)]
pub struct TypeErr {
    value: String,
    ty: String,
    context: Option<(String, String)>,
}

#[derive(Debug, Clone)]
pub enum ConvErr {
    Msg(String),
    Type(TypeErr),
    /// An error of the converter at a field path (segments from the object's root; Go's
    /// message does not name it, the path goes into the error's hint).
    At(Box<ConvErr>, Vec<String>),
}

impl ConvErr {
    /// The error inside `seg` (a field name or `[i]`): the path grows at its front.
    fn at(self, seg: impl Into<String>) -> ConvErr {
        match self {
            ConvErr::At(e, mut path) => {
                path.insert(0, seg.into());
                ConvErr::At(e, path)
            }
            e => ConvErr::At(Box::new(e), vec![seg.into()]),
        }
    }

    /// The field path of the error (`spec.template.spec.containers[0].ports`), if known.
    pub fn path(&self) -> Option<String> {
        let ConvErr::At(_, path) = self else {
            return None;
        };
        let mut s = String::new();
        for p in path {
            if !p.starts_with('[') && !s.is_empty() {
                s.push('.');
            }
            s.push_str(p);
        }
        Some(s)
    }

    pub fn message(&self) -> String {
        match self {
            ConvErr::At(e, _) => e.message(),
            ConvErr::Msg(m) => m.clone(),
            ConvErr::Type(t) => match &t.context {
                Some((s, f)) => format!(
                    "json: cannot unmarshal {} into Go struct field {s}.{f} of type {}",
                    t.value, t.ty
                ),
                None => format!(
                    "json: cannot unmarshal {} into Go value of type {}",
                    t.value, t.ty
                ),
            },
        }
    }
}

fn msg(s: impl Into<String>) -> ConvErr {
    ConvErr::Msg(s.into())
}

type R<T> = Result<T, ConvErr>;

/// A converted value and whether Go's `isZero` holds for it (for omitempty).
struct Out {
    val: Value,
    zero: bool,
}

impl Out {
    fn new(val: Value, zero: bool) -> Out {
        Out { val, zero }
    }
}

/// Whether a field with this value is left out: `json:"-"`, an empty `omitempty` field,
/// or a zero `omitzero` one (the model has `omitzero` only on metav1.Time, whose zero
/// value converts to `null`; `build.rs` refuses it elsewhere).
fn left_out(f: &Field, o: &Out) -> bool {
    f.name == "-" || (f.omitempty && o.zero) || (f.omitzero && o.val.is_null())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Converter,
    Json,
}

/// Error context of one sigs.k8s.io/json Unmarshal call.
#[derive(Default)]
struct JsonCtx<'v> {
    /// (field name, name of the struct holding it)
    stack: Vec<(&'v str, &'static str)>,
    saved: Option<ConvErr>,
    /// [`Model::json_appends_nested_field`].
    append_nested: bool,
}

/// Fields a struct may have for [`Walker::conv_struct`]'s search by key.
const SPARSE_FIELDS: usize = 64;

impl JsonCtx<'_> {
    fn add_context(&self, e: ConvErr) -> ConvErr {
        match (e, self.stack.last()) {
            (ConvErr::Type(mut t), Some((_, strct))) => {
                let mut fields: Vec<&str> = self.stack.iter().map(|(f, _)| *f).collect();
                // An error of a nested Unmarshal (a JSONSchemaPropsOrArray's schema)
                // already names the field within it.
                let inner = match &t.context {
                    Some((_, inner)) if self.append_nested && !inner.is_empty() => inner.clone(),
                    _ => String::new(),
                };
                if !inner.is_empty() {
                    fields.push(&inner);
                }
                t.context = Some((strct.to_string(), fields.join(".")));
                ConvErr::Type(t)
            }
            (e, _) => e,
        }
    }

    fn save(&mut self, e: ConvErr) {
        if self.saved.is_none() {
            self.saved = Some(self.add_context(e));
        }
    }
}

pub struct Walker<'m> {
    m: &'m Model,
}

/// Go's name of the kind of an unstructured value (`reflect.Kind`).
fn src_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "invalid",
        Value::Bool(_) => "bool",
        Value::Number(n) => number_go_type(n),
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

fn number_go_type(n: &serde_json::Number) -> &'static str {
    if n.is_f64() {
        "float64"
    } else if n.is_i64() {
        "int64"
    } else {
        "uint64"
    }
}

/// Characters Go's json.Marshal escapes inside a string.
fn json_escapes(s: &str) -> bool {
    s.chars().any(|c| {
        (c as u32) < 0x20 || matches!(c, '"' | '\\' | '<' | '>' | '&' | '\u{2028}' | '\u{2029}')
    })
}

/// Go's `int64(f)` on amd64: truncation, 0x8000000000000000 when out of range.
fn go_f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        i64::MIN
    } else {
        f.trunc() as i64
    }
}

/// Go's `uint64(f)` on amd64.
fn go_f64_to_u64(f: f64) -> u64 {
    if f < 9_223_372_036_854_775_808.0 {
        go_f64_to_i64(f) as u64
    } else {
        (go_f64_to_i64(f - 9_223_372_036_854_775_808.0) as u64) ^ (1u64 << 63)
    }
}

/// Keep the low `bits` of v, as a signed value.
fn wrap_signed(v: i64, bits: u8) -> i64 {
    match bits {
        8 => i64::from(v as i8),
        16 => i64::from(v as i16),
        32 => i64::from(v as i32),
        _ => v,
    }
}

fn wrap_unsigned(v: u64, bits: u8) -> u64 {
    match bits {
        8 => u64::from(v as u8),
        16 => u64::from(v as u16),
        32 => u64::from(v as u32),
        _ => v,
    }
}

fn float_value(f: f64, mode: Mode) -> Value {
    let n = match serde_json::Number::from_f64(f) {
        Some(n) => n,
        None => return Value::Null,
    };
    match mode {
        Mode::Converter => Value::Number(n),
        Mode::Json => normalize_number(&n),
    }
}

impl<'m> Walker<'m> {
    pub fn new(m: &'m Model) -> Walker<'m> {
        Walker { m }
    }

    /// Round trip an object through the struct `idx`.
    /// `json.Unmarshal` of the object into the Go struct `idx` (what controller-runtime's
    /// fake client does when it adds a typed object): its error, if any.
    pub fn json_decode_struct(&self, obj: &Map<String, Value>, idx: usize) -> R<()> {
        self.json_unmarshal(&Value::Object(obj.clone()), &Ty::Struct(idx))
            .map(|_| ())
    }

    pub fn round_trip_struct(&self, obj: &Map<String, Value>, idx: usize) -> R<Value> {
        let mut out = Map::new();
        self.conv_struct(obj, idx, &mut out)?;
        Ok(Value::Object(out))
    }

    /// Go's reflect String() of a type.
    fn go_type(&self, ty: &Ty) -> String {
        match ty {
            Ty::Scalar(_, go) => go.to_string(),
            Ty::Ptr(t) => format!("*{}", self.go_type(t)),
            Ty::Slice(t) => format!("[]{}", self.go_type(t)),
            Ty::Map(t) => format!("map[string]{}", self.go_type(t)),
            Ty::Bytes => "[]uint8".to_string(),
            Ty::Struct(i) => self.struct_go_name(*i),
            Ty::Special(_) => "special".to_string(),
        }
    }

    fn struct_go_name(&self, i: usize) -> String {
        self.m
            .structs
            .get(i)
            .map(|s| s.go_name.to_string())
            .unwrap_or_default()
    }

    fn zero(&self, ty: &Ty, mode: Mode) -> Out {
        match ty {
            Ty::Scalar(k, _) => match k {
                Kind::String => Out::new(Value::String(String::new()), true),
                Kind::Bool => Out::new(Value::Bool(false), true),
                Kind::Int(_) | Kind::Uint(_) => Out::new(Value::from(0i64), true),
                Kind::Float(_) => Out::new(float_value(0.0, mode), true),
            },
            Ty::Ptr(_) | Ty::Slice(_) | Ty::Map(_) | Ty::Bytes => Out::new(Value::Null, true),
            Ty::Struct(i) => {
                let zero = || {
                    let mut out = Map::new();
                    self.zero_struct(*i, mode, &mut out);
                    out
                };
                let out = match self.m.zeros.get(*i) {
                    Some(cached) => cached[mode as usize].get_or_init(zero).clone(),
                    None => zero(),
                };
                Out::new(Value::Object(out), false)
            }
            Ty::Special(sp) => Out::new(
                match sp {
                    Special::Quantity => Value::String("0".into()),
                    Special::IntOrString => Value::from(0i64),
                    Special::Duration => Value::String("0s".into()),
                    Special::OrBool(_) => Value::Bool(false),
                    Special::Time
                    | Special::Raw
                    | Special::OrArray(_)
                    | Special::OrStringArray(_) => Value::Null,
                },
                false,
            ),
        }
    }

    fn zero_struct(&self, idx: usize, mode: Mode, out: &mut Map<String, Value>) {
        let Some(def) = self.m.structs.get(idx) else {
            return;
        };
        for f in def.fields {
            if f.inline {
                if let Ty::Struct(j) = f.ty {
                    self.zero_struct(j, mode, out);
                }
                continue;
            }
            let o = self.zero(&f.ty, mode);
            if left_out(f, &o) {
                continue;
            }
            out.insert(f.name.to_string(), o.val);
        }
    }

    // ---------------------------------------------------------------- converter

    fn conv(&self, v: Option<&Value>, ty: &Ty) -> R<Out> {
        let v = match v {
            None | Some(Value::Null) => return Ok(self.zero(ty, Mode::Converter)),
            Some(v) => v,
        };
        match ty {
            Ty::Scalar(k, go) => self.conv_scalar(v, *k, go),
            Ty::Ptr(inner) => {
                let o = self.conv(Some(v), inner)?;
                Ok(Out::new(o.val, false))
            }
            Ty::Slice(inner) => match v {
                Value::Array(a) => {
                    let mut items = Vec::with_capacity(a.len());
                    for (i, e) in a.iter().enumerate() {
                        items.push(
                            self.conv(Some(e), inner)
                                .map_err(|e| e.at(format!("[{i}]")))?
                                .val,
                        );
                    }
                    Ok(Out::new(Value::Array(items), a.is_empty()))
                }
                _ => Err(msg(format!("cannot restore slice from {}", src_kind(v)))),
            },
            Ty::Bytes => self.conv_bytes(v),
            Ty::Map(inner) => match v {
                Value::Object(m) => {
                    let mut out = Map::new();
                    for (k, e) in m {
                        let o = self.conv(Some(e), inner).map_err(|e| e.at(k.clone()))?;
                        out.insert(k.clone(), o.val);
                    }
                    Ok(Out::new(Value::Object(out), m.is_empty()))
                }
                _ => Err(msg(format!("cannot restore map from {}", src_kind(v)))),
            },
            Ty::Struct(i) => match v {
                Value::Object(m) => {
                    let mut out = Map::new();
                    self.conv_struct(m, *i, &mut out)?;
                    Ok(Out::new(Value::Object(out), false))
                }
                _ => Err(msg(format!("cannot restore struct from: {}", src_kind(v)))),
            },
            Ty::Special(sp) => self.conv_special(v, *sp),
        }
    }

    fn conv_struct(
        &self,
        m: &Map<String, Value>,
        idx: usize,
        out: &mut Map<String, Value>,
    ) -> R<()> {
        let def = self
            .m
            .structs
            .get(idx)
            .ok_or_else(|| msg("typed model: bad struct index"))?;
        // A map with few of the struct's fields (a schema node sets 2 or 3 of its 40):
        // each key is searched among the fields once, instead of each field in the map.
        let mut found: [Option<&Value>; SPARSE_FIELDS] = [None; SPARSE_FIELDS];
        let sparse = !def.by_name.is_empty()
            && def.fields.len() <= SPARSE_FIELDS
            && m.len() * 4 <= def.fields.len();
        if sparse {
            for (k, v) in m {
                if let Some(fi) = def.field_named(k) {
                    found[fi] = Some(v);
                }
            }
        }
        for (fi, f) in def.fields.iter().enumerate() {
            if f.inline {
                match f.ty {
                    Ty::Struct(j) => self.conv_struct(m, j, out)?,
                    _ => return Err(msg("typed model: inline field is not a struct")),
                }
                continue;
            }
            let v = if sparse { found[fi] } else { m.get(f.name) };
            let o = self.conv(v, &f.ty).map_err(|e| e.at(f.name.to_string()))?;
            if left_out(f, &o) {
                continue;
            }
            out.insert(f.name.to_string(), o.val);
        }
        Ok(())
    }

    fn conv_scalar(&self, v: &Value, k: Kind, go: &str) -> R<Out> {
        let unrecognized = || msg(format!("unrecognized type: {}", k.name()));
        match (v, k) {
            (Value::String(s), Kind::String) => {
                Ok(Out::new(Value::String(s.clone()), s.is_empty()))
            }
            (Value::Bool(b), Kind::Bool) => Ok(Out::new(Value::Bool(*b), !*b)),
            (Value::Number(n), Kind::Float(bits)) => {
                let mut f = n.as_f64().unwrap_or(0.0);
                if bits == 32 {
                    f = f as f32 as f64;
                }
                Ok(Out::new(float_value(f, Mode::Converter), f == 0.0))
            }
            (Value::Number(n), Kind::Int(bits)) => {
                let i = if n.is_f64() {
                    let f = n.as_f64().unwrap_or(0.0);
                    if f != f.trunc() {
                        return Err(msg(format!("cannot convert float64 to {go}")));
                    }
                    go_f64_to_i64(f)
                } else if let Some(i) = n.as_i64() {
                    i
                } else {
                    n.as_u64().unwrap_or(0) as i64
                };
                let i = wrap_signed(i, bits);
                Ok(Out::new(Value::from(i), i == 0))
            }
            (Value::Number(n), Kind::Uint(bits)) => {
                let u = if n.is_f64() {
                    let f = n.as_f64().unwrap_or(0.0);
                    if f != f.trunc() {
                        return Err(msg(format!("cannot convert float64 to {go}")));
                    }
                    go_f64_to_u64(f)
                } else if let Some(u) = n.as_u64() {
                    u
                } else {
                    n.as_i64().unwrap_or(0) as u64
                };
                let u = wrap_unsigned(u, bits);
                Ok(Out::new(Value::from(u), u == 0))
            }
            // Integers are convertible to string in Go, but the converter refuses.
            (Value::Number(n), Kind::String) if !n.is_f64() => {
                Err(msg(format!("cannot convert {} to {go}", number_go_type(n))))
            }
            _ => Err(unrecognized()),
        }
    }

    fn conv_bytes(&self, v: &Value) -> R<Out> {
        match v {
            Value::String(s) => {
                if s.is_empty() {
                    return Ok(Out::new(Value::String(String::new()), true));
                }
                let data = base64_decode(s.as_bytes()).map_err(|at| {
                    msg(format!(
                        "error decoding from json: illegal base64 data at input byte {at}"
                    ))
                })?;
                Ok(Out::new(
                    Value::String(base64_encode(&data)),
                    data.is_empty(),
                ))
            }
            Value::Array(a) => {
                let mut data = Vec::with_capacity(a.len());
                for e in a {
                    let o = if e.is_null() {
                        0
                    } else {
                        self.conv_scalar(e, Kind::Uint(8), "uint8")?
                            .val
                            .as_u64()
                            .unwrap_or(0) as u8
                    };
                    data.push(o);
                }
                Ok(Out::new(
                    Value::String(base64_encode(&data)),
                    data.is_empty(),
                ))
            }
            _ => Err(msg(format!("cannot restore slice from {}", src_kind(v)))),
        }
    }

    /// A type with its own UnmarshalJSON gets `json.Marshal(v)`; v is not null.
    fn conv_special(&self, v: &Value, sp: Special) -> R<Out> {
        let val = match sp {
            Special::Quantity => {
                let text = match v {
                    Value::String(s) if json_escapes(s) => return Err(msg(ERR_FORMAT_WRONG)),
                    Value::String(s) => s.trim_matches(char::is_whitespace).to_string(),
                    Value::Number(n) => number_text(n),
                    Value::Bool(b) => b.to_string(),
                    _ => return Err(msg(ERR_FORMAT_WRONG)),
                };
                Value::String(quantity::canonicalize(&text).map_err(msg)?)
            }
            Special::IntOrString => match v {
                Value::String(s) => Value::String(s.clone()),
                Value::Number(n) => {
                    let text = number_text(n);
                    match text.parse::<i32>() {
                        Ok(i) if !text.starts_with('+') => Value::from(i64::from(i)),
                        _ => {
                            return Err(ConvErr::Type(TypeErr {
                                value: format!("number {text}"),
                                ty: "int32".into(),
                                context: None,
                            }))
                        }
                    }
                }
                other => {
                    return Err(ConvErr::Type(TypeErr {
                        value: crate::go::json::type_name(other).into(),
                        ty: "int32".into(),
                        context: None,
                    }))
                }
            },
            Special::Time => match v {
                Value::String(s) => {
                    let t = parse_rfc3339(s).map_err(msg)?;
                    if t.is_zero() {
                        Value::Null
                    } else {
                        Value::String(t.format_rfc3339_utc())
                    }
                }
                other => {
                    return Err(ConvErr::Type(TypeErr {
                        value: crate::go::json::type_name(other).into(),
                        ty: "string".into(),
                        context: None,
                    }))
                }
            },
            Special::Duration => match v {
                Value::Null => Value::String("0s".into()),
                Value::String(s) => Value::String(super::duration::format(
                    super::duration::parse(s).map_err(msg)?,
                )),
                other => {
                    return Err(ConvErr::Type(TypeErr {
                        value: crate::go::json::type_name(other).into(),
                        ty: "string".into(),
                        context: None,
                    }))
                }
            },
            Special::Raw => normalize_numbers(v.clone()),
            Special::OrBool(schema) => match v {
                Value::Bool(b) => Value::Bool(*b),
                Value::Object(_) => self.json_unmarshal(v, &Ty::Struct(schema))?,
                _ => return Err(msg("boolean or JSON schema expected")),
            },
            Special::OrArray(schema) => match v {
                Value::Object(_) => self.json_unmarshal(v, &Ty::Struct(schema))?,
                Value::Array(a) => {
                    let got = self.json_unmarshal(v, &Ty::Slice(&Ty::Struct(schema)))?;
                    if a.is_empty() {
                        Value::Null
                    } else {
                        got
                    }
                }
                _ => Value::Null,
            },
            Special::OrStringArray(schema) => match v {
                Value::Object(_) => self.json_unmarshal(v, &Ty::Struct(schema))?,
                Value::Array(a) => {
                    let string = Ty::Scalar(Kind::String, "string");
                    let got = self.json_unmarshal(v, &Ty::Slice(&string))?;
                    if a.is_empty() {
                        Value::Null
                    } else {
                        got
                    }
                }
                _ => Value::Null,
            },
        };
        Ok(Out::new(val, false))
    }

    // ---------------------------------------------------------------- json

    /// One `util/json.Unmarshal` into `ty` followed by `json.Marshal` and apimachinery's
    /// number-preserving unmarshal.
    fn json_unmarshal(&self, v: &Value, ty: &Ty) -> R<Value> {
        let mut ctx = JsonCtx {
            append_nested: self.m.json_appends_nested_field,
            ..JsonCtx::default()
        };
        match self.jdecode(v, ty, &mut ctx) {
            Err(e) => Err(ctx.add_context(e)),
            Ok(o) => match ctx.saved {
                Some(e) => Err(e),
                None => Ok(o.val),
            },
        }
    }

    fn jdecode<'v>(&self, v: &'v Value, ty: &Ty, ctx: &mut JsonCtx<'v>) -> R<Out> {
        if v.is_null() {
            return Ok(self.zero(ty, Mode::Json));
        }
        let mismatch = |ctx: &mut JsonCtx, value: String, ty: String| {
            ctx.save(ConvErr::Type(TypeErr {
                value,
                ty,
                context: None,
            }));
        };
        match ty {
            Ty::Scalar(k, go) => {
                let ok = match (v, k) {
                    (Value::String(s), Kind::String) => {
                        Some(Out::new(Value::String(s.clone()), s.is_empty()))
                    }
                    (Value::Bool(b), Kind::Bool) => Some(Out::new(Value::Bool(*b), !*b)),
                    (Value::Number(n), Kind::Float(_)) => {
                        let f = n.as_f64().unwrap_or(0.0);
                        Some(Out::new(float_value(f, Mode::Json), f == 0.0))
                    }
                    (Value::Number(n), Kind::Int(bits)) => {
                        let text = number_text(n);
                        match text.parse::<i64>() {
                            Ok(i) if wrap_signed(i, *bits) == i => {
                                Some(Out::new(Value::from(i), i == 0))
                            }
                            _ => {
                                mismatch(ctx, format!("number {text}"), go.to_string());
                                return Ok(self.zero(ty, Mode::Json));
                            }
                        }
                    }
                    (Value::Number(n), Kind::Uint(bits)) => {
                        let text = number_text(n);
                        match text.parse::<u64>() {
                            Ok(u) if wrap_unsigned(u, *bits) == u => {
                                Some(Out::new(Value::from(u), u == 0))
                            }
                            _ => {
                                mismatch(ctx, format!("number {text}"), go.to_string());
                                return Ok(self.zero(ty, Mode::Json));
                            }
                        }
                    }
                    _ => None,
                };
                match ok {
                    Some(o) => Ok(o),
                    None => {
                        mismatch(ctx, crate::go::json::type_name(v).into(), go.to_string());
                        Ok(self.zero(ty, Mode::Json))
                    }
                }
            }
            Ty::Ptr(inner) => {
                let o = self.jdecode(v, inner, ctx)?;
                Ok(Out::new(o.val, false))
            }
            Ty::Slice(inner) => match v {
                Value::Array(a) => {
                    let mut items = Vec::with_capacity(a.len());
                    for e in a {
                        items.push(self.jdecode(e, inner, ctx)?.val);
                    }
                    Ok(Out::new(Value::Array(items), a.is_empty()))
                }
                _ => {
                    mismatch(ctx, crate::go::json::type_name(v).into(), self.go_type(ty));
                    Ok(self.zero(ty, Mode::Json))
                }
            },
            Ty::Map(inner) => match v {
                Value::Object(m) => {
                    let mut out = Map::new();
                    for (k, e) in m {
                        out.insert(k.clone(), self.jdecode(e, inner, ctx)?.val);
                    }
                    Ok(Out::new(Value::Object(out), m.is_empty()))
                }
                _ => {
                    mismatch(ctx, crate::go::json::type_name(v).into(), self.go_type(ty));
                    Ok(self.zero(ty, Mode::Json))
                }
            },
            Ty::Bytes => match v {
                Value::String(s) => {
                    let data = match base64_decode(s.as_bytes()) {
                        Ok(d) => d,
                        Err(at) => {
                            ctx.save(msg(format!("illegal base64 data at input byte {at}")));
                            Vec::new()
                        }
                    };
                    Ok(Out::new(
                        Value::String(base64_encode(&data)),
                        data.is_empty(),
                    ))
                }
                _ => {
                    mismatch(ctx, crate::go::json::type_name(v).into(), "[]uint8".into());
                    Ok(self.zero(ty, Mode::Json))
                }
            },
            Ty::Struct(i) => match v {
                Value::Object(m) => self.jdecode_struct(m, *i, ctx),
                _ => {
                    mismatch(
                        ctx,
                        crate::go::json::type_name(v).into(),
                        self.struct_go_name(*i),
                    );
                    Ok(self.zero(ty, Mode::Json))
                }
            },
            Ty::Special(sp) => self.conv_special(v, *sp),
        }
    }

    fn jdecode_struct<'v>(
        &self,
        m: &'v Map<String, Value>,
        idx: usize,
        ctx: &mut JsonCtx<'v>,
    ) -> R<Out> {
        let def = self
            .m
            .structs
            .get(idx)
            .ok_or_else(|| msg("typed model: bad struct index"))?;
        // Decode in key order (the JSON text came from json.Marshal of a map).
        let mut decoded: Vec<Option<Out>> = def.fields.iter().map(|_| None).collect();
        for (k, e) in m {
            let fi = if def.by_name.is_empty() {
                def.fields.iter().position(|f| !f.inline && f.name == *k)
            } else {
                def.field_named(k)
            };
            let Some(fi) = fi.filter(|_| k != "-") else {
                continue;
            };
            ctx.stack.push((k, def.name));
            let o = self.jdecode(e, &def.fields[fi].ty, ctx)?;
            ctx.stack.pop();
            decoded[fi] = Some(o);
        }
        let mut out = Map::new();
        for (f, d) in def.fields.iter().zip(decoded) {
            if f.inline || f.name == "-" {
                continue;
            }
            let o = d.unwrap_or_else(|| self.zero(&f.ty, Mode::Json));
            if left_out(f, &o) {
                continue;
            }
            out.insert(f.name.to_string(), o.val);
        }
        Ok(Out::new(Value::Object(out), false))
    }
}
