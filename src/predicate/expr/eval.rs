//! Evaluating a [`Where`] tree on a record: field values as tests see them
//! ([`Val`], [`event_field`]) and the comparison semantics of the module doc.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::json::{Kind, Path, Raw, Record};
use crate::record::{Event, PROVENANCE_KEY};

use super::{CmpOp, Literal, Number, Where};

impl CmpOp {
    fn accepts(self, o: Ordering) -> bool {
        match self {
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        }
    }
}

impl Where {
    /// Evaluates on an event (filled-in workspace and provenance visible).
    pub fn matches_event(&self, ev: &Event<'_>) -> bool {
        self.eval(&|p| event_field(ev, p))
    }

    /// Evaluates on a bare record (paths resolve on the line as written).
    pub fn matches_record(&self, rec: &Record<'_>) -> bool {
        self.eval(&|p| rec.path(p).map_or(Val::Missing, Val::Raw))
    }

    pub(in crate::predicate) fn eval<'a>(&self, field: &dyn Fn(&Path) -> Val<'a>) -> bool {
        match self {
            Where::And(v) => v.iter().all(|w| w.eval(field)),
            Where::Or(v) => v.iter().any(|w| w.eval(field)),
            Where::Not(w) => !w.eval(field),
            Where::Exists(p) => !matches!(field(p), Val::Missing),
            Where::Cmp(p, op, lit) => compare(&field(p), *op, lit),
            Where::Match(p, re) => field(p).as_str().is_some_and(|s| re.is_match(&s)),
        }
    }
}

#[derive(Clone)]
pub(in crate::predicate) enum Val<'a> {
    Missing,
    Raw(Raw<'a>),
    Str(Cow<'a, str>),
    Int(i128),
}

impl<'a> Val<'a> {
    fn as_str(&self) -> Option<Cow<'a, str>> {
        match self {
            Val::Raw(r) => r.as_str(),
            Val::Str(s) => Some(s.clone()),
            _ => None,
        }
    }

    fn as_number(&self) -> Option<Number> {
        match self {
            Val::Raw(r) if r.kind() == Kind::Number => std::str::from_utf8(r.bytes()).ok().and_then(Number::parse),
            Val::Int(i) => Some(Number { f: *i as f64, int: Some(*i) }),
            _ => None,
        }
    }

    /// The JSON type of the value; `None` when missing.
    pub(in crate::predicate) fn kind(&self) -> Option<Kind> {
        match self {
            Val::Missing => None,
            Val::Raw(r) => Some(r.kind()),
            Val::Str(_) => Some(Kind::String),
            Val::Int(_) => Some(Kind::Number),
        }
    }

    /// The value as a raw JSON value of the line, when it is one.
    pub(in crate::predicate) fn raw(&self) -> Option<Raw<'a>> {
        match self {
            Val::Raw(r) => Some(*r),
            _ => None,
        }
    }
}

/// The value at `p` of an event, as tests see it.
pub(in crate::predicate) fn event_field<'a>(ev: &Event<'a>, p: &Path) -> Val<'a> {
    match p.segments() {
        [w] if w == "workspace" => ev.workspace().map(Val::Str).unwrap_or(Val::Missing),
        [ci, key] if ci == PROVENANCE_KEY && ev.provenance().is_none() => match key.as_str() {
            "session" => ev.session().map(Val::Str).unwrap_or(Val::Missing),
            "path" => Val::Str(Cow::Borrowed(ev.source)),
            "line" => Val::Int(i128::from(ev.line)),
            _ => Val::Missing,
        },
        _ if !ev.derived() => ev.rec.path(p).map_or(Val::Missing, Val::Raw),
        // A derived record (e.g. a Claude hook line) through its normalised view.
        [e] if e == "event" => Val::Str(ev.name()),
        [t] if t == "timestamp" => ev.timestamp_raw().map_or(Val::Missing, Val::Raw),
        [k] if ev.original().is_some_and(|(key, _)| key == k) => {
            ev.original().and_then(|(_, v)| v?.as_str()).map_or(Val::Missing, Val::Str)
        }
        [d, rest @ ..] if d == "data" => {
            let mut v = match ev.data() {
                Some(v) => v,
                None => return Val::Missing,
            };
            for seg in rest {
                v = match v.get(seg) {
                    Some(v) => v,
                    None => return Val::Missing,
                };
            }
            Val::Raw(v)
        }
        _ => Val::Missing,
    }
}

fn compare(v: &Val<'_>, op: CmpOp, lit: &Literal) -> bool {
    match op {
        CmpOp::Eq => equal(v, lit),
        CmpOp::Ne => !equal(v, lit),
        _ => order(v, lit).is_some_and(|o| op.accepts(o)),
    }
}

fn equal(v: &Val<'_>, lit: &Literal) -> bool {
    match lit {
        Literal::Null => match v {
            Val::Missing => true,
            Val::Raw(r) => r.is_null(),
            _ => false,
        },
        Literal::Bool(b) => matches!(v, Val::Raw(r) if r.as_bool() == Some(*b)),
        Literal::Num(n) => v.as_number().and_then(|x| x.cmp(n)) == Some(Ordering::Equal),
        Literal::Str(s) => match v {
            // Fast path: a string without escapes equals its raw bytes.
            Val::Raw(r) => match r.str_content() {
                Some(raw) if memchr::memchr(b'\\', raw).is_none() => raw == s.as_bytes(),
                Some(_) => r.as_str().is_some_and(|d| d == s.as_str()),
                None => false,
            },
            Val::Str(d) => d == s,
            _ => false,
        },
    }
}

fn order(v: &Val<'_>, lit: &Literal) -> Option<Ordering> {
    match lit {
        Literal::Num(n) => v.as_number()?.cmp(n),
        Literal::Str(s) => Some(v.as_str()?.as_ref().cmp(s.as_str())),
        _ => None,
    }
}
