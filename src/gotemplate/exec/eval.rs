//! Evaluation of pipelines, commands, function calls and arguments (exec.go's
//! `evalPipeline` … `validateType`), with Go's argument conversion rules.

use std::collections::BTreeMap;

use super::*;

impl<'a> Exec<'a> {
    pub(super) fn eval_pipeline(&mut self, dot: &Rv, pipe: &'a Pipe) -> R<Rv> {
        self.set_at(At::Pipe(pipe), pipe.pos);
        let mut value: Option<Rv> = None;
        for cmd in &pipe.cmds {
            let v = self.eval_command(dot, cmd, value.take())?;
            value = Some(v.unbox());
        }
        let value = value.unwrap_or_else(Rv::invalid);
        for name in &pipe.decl {
            if pipe.is_assign {
                self.set_var(name, value.clone())?;
            } else {
                self.vars.push((name.clone(), value.clone()));
            }
        }
        Ok(value)
    }

    pub(super) fn not_a_function(&self, args: &[Arg], fin: &Option<Rv>) -> R<()> {
        if args.len() > 1 || fin.is_some() {
            return self.err(format!("can't give argument to non-function {}", args[0]));
        }
        Ok(())
    }

    pub(super) fn eval_command(&mut self, dot: &Rv, cmd: &'a Cmd, fin: Option<Rv>) -> R<Rv> {
        let first = &cmd.args[0];
        match first {
            Arg::Field { idents, .. } => {
                self.at_arg(first);
                return self.eval_field_chain(dot, dot.clone(), idents, &cmd.args, fin);
            }
            Arg::Chain { node, fields, .. } => {
                return self.eval_chain(dot, first, node, fields, &cmd.args, fin)
            }
            Arg::Ident { name, .. } => {
                self.at_arg(first);
                return self.eval_function(dot, name, At::Cmd(cmd), cmd.pos, &cmd.args, fin);
            }
            Arg::Pipe(p) => {
                self.not_a_function(&cmd.args, &fin)?;
                return self.eval_pipeline(dot, p);
            }
            Arg::Variable { idents, .. } => {
                return self.eval_variable(dot, first, idents, &cmd.args, fin)
            }
            _ => {}
        }
        self.at_arg(first);
        self.not_a_function(&cmd.args, &fin)?;
        match first {
            Arg::Bool { value, .. } => Ok(Rv::plain(Value::Bool(*value))),
            Arg::Dot { .. } => Ok(dot.clone()),
            Arg::Nil { .. } => self.err("nil is not a command"),
            Arg::Number { .. } => self.ideal_constant(first),
            Arg::Str { text, .. } => Ok(Rv::plain(Value::str(text.as_str()))),
            _ => self.err(format!(
                "can't evaluate command {}",
                crate::go::quote::quote(&first.to_string())
            )),
        }
    }

    pub(super) fn ideal_constant(&mut self, a: &'a Arg) -> R<Rv> {
        self.at_arg(a);
        let Arg::Number { num, .. } = a else {
            return Ok(Rv::invalid());
        };
        let t = &num.text;
        let hex_int = t.len() > 2
            && t.starts_with('0')
            && matches!(t.as_bytes()[1], b'x' | b'X')
            && !t.contains(['p', 'P']);
        let rune_int = t.starts_with('\'');
        if num.is_float && !hex_int && !rune_int && t.contains(['.', 'e', 'E', 'p', 'P']) {
            return Ok(Rv::plain(Value::Float(num.float)));
        }
        if num.is_int {
            return Ok(Rv::plain(Value::int(num.int)));
        }
        if num.is_uint {
            return self.err(format!("{t} overflows int"));
        }
        Ok(Rv::invalid())
    }

    pub(super) fn eval_chain(
        &mut self,
        dot: &Rv,
        chain: &'a Arg,
        node: &'a Arg,
        fields: &'a [String],
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        self.at_arg(chain);
        if let Arg::Nil { .. } = node {
            return self.err(format!("indirection through explicit nil in {chain}"));
        }
        let recv = self.eval_arg(dot, None, node)?;
        self.eval_field_chain(dot, recv, fields, args, fin)
    }

    pub(super) fn eval_variable(
        &mut self,
        dot: &Rv,
        var: &'a Arg,
        idents: &'a [String],
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        self.at_arg(var);
        let v = self.var_value(&idents[0])?;
        if idents.len() == 1 {
            self.not_a_function(args, &fin)?;
            return Ok(v);
        }
        self.eval_field_chain(dot, v, &idents[1..], args, fin)
    }

    pub(super) fn eval_field_chain(
        &mut self,
        dot: &Rv,
        mut recv: Rv,
        idents: &'a [String],
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        let n = idents.len();
        for id in &idents[..n - 1] {
            recv = self.eval_field(dot, id, &[], None, recv)?;
        }
        self.eval_field(dot, &idents[n - 1], args, fin, recv)
    }

    pub(super) fn eval_field(
        &mut self,
        dot: &Rv,
        name: &str,
        args: &'a [Arg],
        fin: Option<Rv>,
        recv: Rv,
    ) -> R<Rv> {
        if recv.v.is_invalid() {
            return Ok(Rv::invalid());
        }
        let typ = recv.static_type();
        if let Value::Nil = recv.v {
            return self.err(format!("nil pointer evaluating {typ}.{name}"));
        }
        if let Value::Semver(sv) = &recv.v {
            if let Some(m) = crate::gotemplate::methods::method(sv, name) {
                let at = self.at;
                return self.eval_call(dot, &m, false, name, at, self.at_pos, args, fin);
            }
        }
        let has_args = args.len() > 1 || fin.is_some();
        if let Value::Map(m, e) = &recv.v {
            if has_args {
                return self.err(format!("{name} is not a method but has arguments"));
            }
            return match m.get(name) {
                Some(v) => Ok(Rv {
                    v: v.clone(),
                    boxed: *e == Elem::Any,
                }),
                None if self.opts.missing_key_error => self.err(format!(
                    "map has no entry for key {}",
                    crate::go::quote::quote(name)
                )),
                None => Ok(Rv::invalid()),
            };
        }
        self.err(format!("can't evaluate field {name} in type {typ}"))
    }

    pub(super) fn eval_function(
        &mut self,
        dot: &Rv,
        name: &str,
        cmd_at: At<'a>,
        cmd_pos: usize,
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        let found = if self.opts.sprig {
            funcs::lookup(name)
        } else {
            funcs::lookup_builtin(name)
        };
        let Some(f) = found else {
            return self.err(format!(
                "{} is not a defined function",
                crate::go::quote::quote(name)
            ));
        };
        let builtin = !self.opts.sprig || funcs::is_builtin(name);
        self.eval_call(dot, &f, builtin, name, cmd_at, cmd_pos, args, fin)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn eval_call(
        &mut self,
        dot: &Rv,
        f: &Func,
        builtin: bool,
        name: &str,
        cmd_at: At<'a>,
        cmd_pos: usize,
        args: &'a [Arg],
        fin: Option<Rv>,
    ) -> R<Rv> {
        let args = if args.is_empty() { args } else { &args[1..] };
        let num_in = args.len() + usize::from(fin.is_some());
        let np = f.params.len();
        let num_fixed = if f.variadic { np - 1 } else { args.len() };
        if f.variadic {
            if num_in < np - 1 {
                return self.err(format!(
                    "wrong number of args for {name}: want at least {} got {}",
                    np - 1,
                    args.len()
                ));
            }
        } else if num_in != np {
            return self.err(format!(
                "wrong number of args for {name}: want {np} got {num_in}"
            ));
        }
        if builtin && (name == "and" || name == "or") {
            let mut v = Rv::invalid();
            for a in args {
                v = self.eval_arg(dot, Some(Param::Rv), a)?;
                let t = v.v.truth();
                if t == (name == "or") {
                    return Ok(v);
                }
            }
            if let Some(fv) = fin {
                v = self.validate(fv, Some(Param::Rv))?;
            }
            return Ok(v);
        }
        let mut argv: Vec<Value> = Vec::with_capacity(num_in + 1);
        if let Some(b) = &f.bound {
            argv.push(b.clone());
        }
        let mut i = 0;
        while i < num_fixed && i < args.len() {
            let v = self.eval_arg(dot, Some(f.params[i]), &args[i])?;
            argv.push(v.v);
            i += 1;
        }
        if f.variadic {
            let t = f.params[np - 1];
            while i < args.len() {
                let v = self.eval_arg(dot, Some(t), &args[i])?;
                argv.push(v.v);
                i += 1;
            }
        }
        if let Some(fv) = fin {
            let t = if f.variadic && num_in - 1 < num_fixed {
                f.params[num_in - 1]
            } else {
                f.params[np - 1]
            };
            let v = self.validate(fv, Some(t))?;
            argv.push(v.v);
        }
        // What a function is given bounds what it builds: no function gets more than
        // the output limit of text (strings are shared, so a list may name one big
        // string many times).
        let size = match args_size(&argv, self.opts.max_bytes as usize) {
            Ok(n) => n,
            Err(depth) => {
                self.set_at(cmd_at, cmd_pos);
                return self.err(format!("error calling {name}: {}", too_deep(depth)));
            }
        };
        self.check_size(size)?;
        self.charge(size as u64 / 64)?;
        match (f.call)(&argv) {
            Ok(v) => {
                self.charge_value(&v)?;
                let boxed = f.ret_iface && !v.is_invalid();
                Ok(Rv { v, boxed })
            }
            Err(e) => {
                self.set_at(cmd_at, cmd_pos);
                self.err(format!("error calling {name}: {e}"))
            }
        }
    }

    pub(super) fn eval_arg(&mut self, dot: &Rv, typ: Option<Param>, n: &'a Arg) -> R<Rv> {
        self.at_arg(n);
        let v = match n {
            Arg::Dot { .. } => dot.clone(),
            Arg::Nil { .. } => {
                return match typ {
                    Some(t) if t.can_be_nil() => Ok(t.zero()),
                    None => Ok(Rv::invalid()),
                    Some(t) => self.err(format!("cannot assign nil to {}", t.name())),
                };
            }
            Arg::Field { idents, .. } => {
                let args = std::slice::from_ref(n);
                self.eval_field_chain(dot, dot.clone(), idents, args, None)?
            }
            Arg::Variable { idents, .. } => self.eval_variable(dot, n, idents, &[], None)?,
            Arg::Pipe(p) => self.eval_pipeline(dot, p)?,
            Arg::Ident { name, .. } => {
                self.eval_function(dot, name, At::Arg(n), n.pos(), &[], None)?
            }
            Arg::Chain { node, fields, .. } => self.eval_chain(dot, n, node, fields, &[], None)?,
            _ => return self.eval_literal(typ, n),
        };
        self.validate(v, typ)
    }

    pub(super) fn eval_literal(&mut self, typ: Option<Param>, n: &'a Arg) -> R<Rv> {
        let found = |s: &Self, what: &str| s.err(format!("expected {what}; found {n}"));
        match typ {
            None | Some(Param::Any) | Some(Param::Rv) => match n {
                Arg::Bool { value, .. } => Ok(Rv::plain(Value::Bool(*value))),
                Arg::Number { .. } => self.ideal_constant(n),
                Arg::Str { text, .. } => Ok(Rv::plain(Value::str(text.as_str()))),
                _ => self.err(format!(
                    "can't handle assignment of {n} to empty interface argument"
                )),
            },
            Some(Param::Bool) => match n {
                Arg::Bool { value, .. } => Ok(Rv::plain(Value::Bool(*value))),
                _ => found(self, "bool"),
            },
            Some(Param::Float) => match n {
                Arg::Number { num, .. } if num.is_float => Ok(Rv::plain(Value::Float(num.float))),
                _ => found(self, "float"),
            },
            Some(Param::Int) => match n {
                Arg::Number { num, .. } if num.is_int => {
                    Ok(Rv::plain(Value::Int(num.int, IntTy::Int)))
                }
                _ => found(self, "integer"),
            },
            Some(Param::Str) => match n {
                Arg::Str { text, .. } => Ok(Rv::plain(Value::str(text.as_str()))),
                _ => found(self, "string"),
            },
            Some(t) => self.err(format!("can't handle {n} for arg of type {}", t.name())),
        }
    }

    /// validateType: can `v` be passed as a parameter of type `typ`?
    pub(super) fn validate(&mut self, v: Rv, typ: Option<Param>) -> R<Rv> {
        let Some(t) = typ else { return Ok(v) };
        if v.v.is_invalid() {
            if t.can_be_nil() {
                return Ok(t.zero());
            }
            return self.err(format!("invalid value; expected {}", t.name()));
        }
        if t == Param::Rv || t == Param::Any {
            return Ok(v);
        }
        if t.accepts(&v.v) {
            return Ok(Rv::plain(v.v));
        }
        let got = if let Value::Nil = v.v {
            "interface {}".to_string()
        } else {
            v.v.type_name()
        };
        self.err(format!(
            "wrong type for value; expected {}; got {got}",
            t.name()
        ))
    }
}

/// Convert a nil-able parameter's zero value.
impl Param {
    fn zero(self) -> Rv {
        match self {
            Param::Rv => Rv::invalid(),
            Param::Any => Rv {
                v: Value::Nil,
                boxed: true,
            },
            Param::Map => Rv::plain(Value::Map(std::rc::Rc::new(BTreeMap::new()), Elem::Any)),
            Param::Semver => Rv::plain(Value::Nil),
            _ => Rv::invalid(),
        }
    }
}
