//! The state CLI's argument rules (docs/formats/ultragoal.md §2.0), kept exactly because skills call
//! `git ucg goal` with the argument lists they wrote for the TypeScript CLI.
//!
//! A `--flag` takes the next token as its value unless that token is itself a `--flag` (then the
//! flag is the boolean `true`); the free-text flags always take the next token; a flag that ends
//! the list is `true`; the last of repeated flags wins. Everything else is a positional.

use std::collections::HashMap;

/// Free-text flags whose values may begin with `--`.
const FREE_TEXT: [&str; 3] = ["evidence", "rationale", "codex-goal-objective"];

/// A flag's value: a string, or the boolean `true` of a valueless flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    True,
}

#[derive(Debug, Default)]
pub struct Parsed {
    pub positionals: Vec<String>,
    flags: HashMap<String, Value>,
}

pub fn parse(args: &[String]) -> Parsed {
    let mut parsed = Parsed::default();
    let mut tokens = args.iter().peekable();
    while let Some(token) = tokens.next() {
        let Some(name) = token.strip_prefix("--") else {
            parsed.positionals.push(token.clone());
            continue;
        };
        let takes_next = match tokens.peek() {
            Some(next) => FREE_TEXT.contains(&name) || !next.starts_with("--"),
            None => false,
        };
        let value = match takes_next {
            true => Value::Text(tokens.next().cloned().unwrap_or_default()),
            false => Value::True,
        };
        parsed.flags.insert(name.to_string(), value);
    }
    parsed
}

impl Parsed {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.flags.get(name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.flags.contains_key(name)
    }

    /// The flag's text; a valueless flag reads as the literal `true`, as in the reference.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.flags.get(name).map(|value| match value {
            Value::Text(text) => text.as_str(),
            Value::True => "true",
        })
    }

    /// The flag's text only when it was given one.
    pub fn value(&self, name: &str) -> Option<&str> {
        match self.flags.get(name) {
            Some(Value::Text(text)) => Some(text),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(line: &str) -> Parsed {
        parse(&line.split(' ').map(str::to_string).collect::<Vec<_>>())
    }

    #[test]
    fn the_reference_rules() {
        let p = parse_str("set --phase pursuing --completion-evidence --plan-path /x");
        assert_eq!(p.positionals, ["set"]);
        assert_eq!(p.value("phase"), Some("pursuing"));
        assert_eq!(p.get("completion-evidence"), Some(&Value::True));
        assert_eq!(p.value("plan-path"), Some("/x"));
        let p = parse_str("retire-story S1 --evidence --looks-like-a-flag --rationale r --max");
        assert_eq!(p.positionals, ["retire-story", "S1"]);
        assert_eq!(p.value("evidence"), Some("--looks-like-a-flag"));
        assert_eq!(p.value("rationale"), Some("r"));
        assert_eq!(p.text("max"), Some("true"));
        let p = parse_str("set --phase a --phase b");
        assert_eq!(p.value("phase"), Some("b"));
    }
}
