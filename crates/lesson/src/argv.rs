//! DG-Anvil's argument rules (`cli/lib/args.js`), which `anvil ledger …` parses its flags with:
//! `--name value`, `--name=value`, `-x value`, `-xvalue`, a value taken as it is even when it starts
//! with `-` (`--gap-note "- bullet"`), `-1` a positional, `--` ending the flags, the last of a
//! repeated flag winning, integers checked as `parseInt` then `String(n)` check them, and the
//! refusals `E_UNKNOWN_FLAG` and `E_MISSING_ARG` with their details. git-ucg's own flags (`--json`,
//! `--ledger`…) are declared beside the reference's; `--help` and `-h` ask for help.

use super::entry::{details, LessonError};
use super::js::{number_to_string, JsString, JsValue};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Str,
    Int,
    Bool,
}

/// One flag: its long name, its type, whether it is required.
pub struct Opt {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
}

pub const fn opt(name: &'static str, kind: Kind, required: bool) -> Opt {
    Opt {
        name,
        kind,
        required,
    }
}

pub struct Schema {
    pub options: &'static [Opt],
    pub short: &'static [(char, &'static str)],
}

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Str(String),
    Int(f64),
    Bool(bool),
}

#[derive(Default, Debug)]
pub struct Parsed {
    pub positional: Vec<String>,
    pub options: HashMap<&'static str, Val>,
}

impl Parsed {
    pub fn string(&self, name: &str) -> Option<&str> {
        match self.options.get(name) {
            Some(Val::Str(s)) => Some(s),
            _ => None,
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        matches!(self.options.get(name), Some(Val::Bool(true)))
    }

    pub fn int(&self, name: &str) -> Option<f64> {
        match self.options.get(name) {
            Some(Val::Int(n)) => Some(*n),
            _ => None,
        }
    }
}

/// Why the arguments were not parsed.
#[derive(Debug)]
pub enum Stop {
    /// `--help` or `-h`.
    Help,
    Refused(LessonError),
}

/// The names a plain JavaScript object answers for without having them: the reference's option
/// table finds an (untyped) definition under these, so `--constructor x` is taken and ignored.
const INHERITED: [&str; 12] = [
    "constructor",
    "__defineGetter__",
    "__defineSetter__",
    "hasOwnProperty",
    "__lookupGetter__",
    "__lookupSetter__",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toString",
    "valueOf",
    "__proto__",
    "toLocaleString",
];

fn missing(flag: &str, message: String) -> Stop {
    Stop::Refused(LessonError::new(
        "E_MISSING_ARG",
        message,
        details([("flag", Some(JsValue::str(flag)))]),
    ))
}

/// The argument after `argv[*i]`, now the one at `*i`: a flag's value, refused when there is none.
fn next_value(argv: &[String], i: &mut usize, flag: &str) -> Result<String, Stop> {
    *i += 1;
    let message = || missing(flag, format!("flag {flag} requires a value"));
    argv.get(*i).cloned().ok_or_else(message)
}

fn unknown(flag: impl Into<JsString>, message: String, index: usize) -> Stop {
    Stop::Refused(LessonError::new(
        "E_UNKNOWN_FLAG",
        message,
        details([
            ("flag", Some(JsValue::String(flag.into()))),
            ("argv_index", Some(JsValue::Number(index as f64))),
        ]),
    ))
}

/// `coerce(value, 'integer', flag)`: `parseInt(value, 10)`, refused unless `String(n)` is the
/// value trimmed.
fn integer(value: &str, flag: &str) -> Result<f64, Stop> {
    let trimmed = JsString::from(value).trim();
    let text = trimmed.to_lossy();
    let (sign, rest) = match text.as_bytes().first() {
        Some(b'-') => (-1.0, &text[1..]),
        Some(b'+') => (1.0, &text[1..]),
        _ => (1.0, &text[..]),
    };
    let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    let parsed = (!digits.is_empty())
        .then(|| digits.parse::<f64>().ok())
        .flatten()
        .map(|n| sign * n);
    match parsed {
        Some(n) if number_to_string(n) == text => Ok(n),
        _ => Err(Stop::Refused(LessonError::new(
            "E_MISSING_ARG",
            format!("flag {flag} requires an integer"),
            details([
                ("flag", Some(JsValue::str(flag))),
                ("reason", Some(JsValue::str("not_integer"))),
            ]),
        ))),
    }
}

fn coerce(value: &str, kind: Kind, flag: &str) -> Result<Val, Stop> {
    Ok(match kind {
        Kind::Str => Val::Str(value.to_string()),
        Kind::Bool => Val::Bool(value == "true"),
        Kind::Int => Val::Int(integer(value, flag)?),
    })
}

/// `args.parse(argv, schema)`.
pub fn parse(argv: &[String], schema: &Schema) -> Result<Parsed, Stop> {
    let mut parsed = Parsed::default();
    let find = |name: &str| schema.options.iter().find(|o| o.name == name);
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        if a == "--" {
            break;
        }
        if a == "--help" || a == "-h" {
            return Err(Stop::Help);
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, value) = body
                .split_once('=')
                .map_or((body, None), |(name, value)| (name, Some(value)));
            let (key, kind) = match find(name) {
                Some(def) => (Some(def.name), def.kind),
                None if INHERITED.contains(&name) => (None, Kind::Str),
                None => {
                    return Err(unknown(
                        format!("--{name}"),
                        format!("unknown flag --{name}"),
                        i,
                    ))
                }
            };
            let flag = format!("--{name}");
            let val = match value {
                None if kind == Kind::Bool => Val::Bool(true),
                Some(value) => coerce(value, kind, &flag)?,
                None => coerce(&next_value(argv, &mut i, &flag)?, kind, &flag)?,
            };
            if let Some(key) = key {
                parsed.options.insert(key, val);
            }
            i += 1;
            continue;
        }
        let units: Vec<u16> = a.encode_utf16().collect();
        let digit_after_dash = units.get(1).is_some_and(|c| (0x30..=0x39).contains(c));
        if units.len() > 1 && units[0] == 0x2D && !digit_after_dash {
            let cluster = &units[1..];
            let mut k = 0;
            while k < cluster.len() {
                let ch = String::from_utf16_lossy(&cluster[k..k + 1]);
                let flag = format!("-{ch}");
                let long = schema
                    .short
                    .iter()
                    .find(|(c, _)| cluster[k] == *c as u16 && (*c as u32) < 0x10000)
                    .map(|(_, long)| *long);
                let Some(def) = long.and_then(find) else {
                    let mut shown = JsString::from("-");
                    shown.push_js(&JsString::from_units(&cluster[k..k + 1]));
                    return Err(unknown(shown, format!("unknown short flag {flag}"), i));
                };
                if def.kind == Kind::Bool {
                    parsed.options.insert(def.name, Val::Bool(true));
                } else {
                    let value = if k < cluster.len() - 1 {
                        let rest = String::from_utf16_lossy(&cluster[k + 1..]);
                        k = cluster.len();
                        rest
                    } else {
                        next_value(argv, &mut i, &flag)?
                    };
                    let val = coerce(&value, def.kind, &flag)?;
                    parsed.options.insert(def.name, val);
                }
                k += 1;
            }
            i += 1;
            continue;
        }
        parsed.positional.push(a.clone());
        i += 1;
    }
    for def in schema.options {
        if def.required && !parsed.options.contains_key(def.name) {
            return Err(missing(
                &format!("--{}", def.name),
                format!("required flag --{} not provided", def.name),
            ));
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUERY: Schema = Schema {
        options: &[
            opt("limit", Kind::Int, false),
            opt("json", Kind::Bool, false),
        ],
        short: &[('l', "limit")],
    };

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn refused(list: &[&str]) -> String {
        match parse(&args(list), &QUERY) {
            Err(Stop::Refused(e)) => format!("{} {}", e.code, e.details.to_json_string()),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn the_reference_rules() {
        let p = parse(&args(&["rate", "-l3", "--json", "-1", "--", "x"]), &QUERY).unwrap();
        assert_eq!(p.positional, ["rate", "-1"]);
        assert_eq!(p.int("limit"), Some(3.0));
        assert!(p.flag("json"));
        for (argv, limit) in [(&["--limit", " 7 "][..], 7.0), (&["--limit=-3"], -3.0)] {
            let p = parse(&args(argv), &QUERY).unwrap();
            assert_eq!(p.int("limit"), Some(limit), "{argv:?}");
        }
        let not_integer = r#"E_MISSING_ARG {"flag":"--limit","reason":"not_integer"}"#;
        for bad in ["abc", "07", "2.5", "-0", "+5", "1e3", ""] {
            assert_eq!(refused(&["--limit", bad]), not_integer, "{bad}");
        }
        assert_eq!(
            refused(&["-labc"]),
            r#"E_MISSING_ARG {"flag":"-l","reason":"not_integer"}"#
        );
        assert_eq!(
            refused(&["x", "-x"]),
            r#"E_UNKNOWN_FLAG {"flag":"-x","argv_index":1}"#
        );
        assert_eq!(
            refused(&["--nope=1"]),
            r#"E_UNKNOWN_FLAG {"flag":"--nope","argv_index":0}"#
        );
        assert_eq!(refused(&["--limit"]), r#"E_MISSING_ARG {"flag":"--limit"}"#);
        assert!(parse(&args(&["--constructor", "x"]), &QUERY).is_ok());
        assert!(matches!(
            parse(&args(&["x", "-h"]), &QUERY),
            Err(Stop::Help)
        ));
    }
}
