//! Who decides what: rules `<kind or glob>=<email>` — `git config --add ucg.decider` (multi-valued)
//! and the customization layers' `workflow.deciders` table — and the deciders they give a pending
//! item by its kind. Pure: rule texts in, emails out.
//!
//! Precedence: a pattern git's configuration names replaces the same pattern of the customization
//! layers (git's configuration is per clone and per person; the layers are the project's). Of the
//! rules whose pattern matches a kind, those naming the kind exactly win; only without one do the
//! globs that match (`undecided-*`, `*`) decide, all of them together.

/// One rule: a kind, or a glob over kinds (`*`, `?`, `[…]`, `{a,b}`), and who decides it.
#[derive(Debug, Clone)]
struct Rule {
    pattern: String,
    email: String,
    /// `None` for a pattern with no glob characters: it names one kind.
    glob: Option<globset::GlobMatcher>,
}

/// The rules in force.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    rules: Vec<Rule>,
}

/// Whether `email` is one address a decider's value may be: `local@domain`, the local part of
/// letters, digits and `.+-_=~%`, the domain of letters, digits, `-` and `.`. Nothing a mail
/// header, a list or a shell would read as more than one address (a newline starts a header, a
/// comma a second recipient, `$(…)` a command in the README's sendmail recipe).
fn is_one_address(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let local_ok = |c: char| c.is_alphanumeric() || ".+-_=~%".contains(c);
    let domain_ok = |c: char| c.is_alphanumeric() || "-.".contains(c);
    !local.is_empty()
        && !domain.is_empty()
        && local.chars().all(local_ok)
        && domain.chars().all(domain_ok)
        && !domain.starts_with(['.', '-'])
        && !domain.ends_with(['.', '-'])
}

impl Rules {
    /// The rules of `git config ucg.decider` values (`pattern=email`, in configuration order) over
    /// the `workflow.deciders` table's (`pattern` → an email or a list of them); the warnings for
    /// entries that are not rules.
    pub fn new(git: &[String], workflow: &[(String, String)]) -> (Rules, Vec<String>) {
        let mut warnings = Vec::new();
        let mut from_git = Vec::new();
        for value in git {
            match value.split_once('=') {
                Some((pattern, email))
                    if !pattern.trim().is_empty() && !email.trim().is_empty() =>
                {
                    from_git.push((pattern.trim().to_string(), email.trim().to_string()));
                }
                _ => warnings.push(format!(
                    "ucg.decider {value:?} is not <kind-or-glob>=<email>; ignored"
                )),
            }
        }
        let overridden = |pattern: &str| from_git.iter().any(|(p, _)| p == pattern);
        let layers = workflow.iter().filter(|(pattern, _)| !overridden(pattern));
        let mut rules = Vec::new();
        for (pattern, email) in from_git.iter().chain(layers).cloned() {
            if !is_one_address(&email) {
                warnings.push(format!(
                    "decider {pattern:?} = {email:?} is not one address (local@domain: letters, \
                     digits and . + - _ = ~ % only, no spaces, commas or quotes); ignored"
                ));
                continue;
            }
            // A pattern without any of a glob's special characters names one kind.
            let is_glob = pattern.contains(['*', '?', '[', '{']);
            let glob = match is_glob.then(|| globset::Glob::new(&pattern)).transpose() {
                Ok(glob) => glob.map(|glob| glob.compile_matcher()),
                Err(e) => {
                    warnings.push(format!("decider pattern {pattern:?}: {e}; ignored"));
                    continue;
                }
            };
            rules.push(Rule {
                pattern,
                email,
                glob,
            });
        }
        (Rules { rules }, warnings)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Who decides an item of `kind`: the rules naming it exactly, else every glob matching it;
    /// each email once, in rule order.
    pub(crate) fn deciders(&self, kind: &str) -> Vec<String> {
        let exact: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|r| r.glob.is_none() && r.pattern == kind)
            .collect();
        let chosen: Vec<&Rule> = match exact.is_empty() {
            false => exact,
            true => self
                .rules
                .iter()
                .filter(|r| r.glob.as_ref().is_some_and(|g| g.is_match(kind)))
                .collect(),
        };
        each_once(chosen.into_iter().map(|rule| &rule.email))
    }
}

/// `emails` each once (compared without regard to ASCII case, the first spelling kept), in order.
pub(crate) fn each_once<'e>(emails: impl IntoIterator<Item = &'e String>) -> Vec<String> {
    let mut once: Vec<String> = Vec::new();
    for email in emails {
        if !once.iter().any(|e| e.eq_ignore_ascii_case(email)) {
            once.push(email.clone());
        }
    }
    once
}

/// Whether `email` is among `deciders` (emails compare without regard to ASCII case).
pub fn decides(deciders: &[String], email: &str) -> bool {
    deciders
        .iter()
        .any(|d| d.eq_ignore_ascii_case(email.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(git: &[&str], workflow: &[(&str, &str)]) -> Rules {
        let git: Vec<String> = git.iter().map(|s| s.to_string()).collect();
        let workflow: Vec<(String, String)> = workflow
            .iter()
            .map(|(p, e)| (p.to_string(), e.to_string()))
            .collect();
        Rules::new(&git, &workflow).0
    }

    #[test]
    fn exact_kinds_beat_globs_and_globs_decide_together() {
        let r = rules(
            &[
                "undecided-product=pm@example.com",
                "undecided-*=arch@example.com",
                "*=lead@example.com",
                "undecided-product=po@example.com",
            ],
            &[],
        );
        assert_eq!(
            r.deciders("undecided-product"),
            ["pm@example.com", "po@example.com"]
        );
        assert_eq!(
            r.deciders("undecided-architecture"),
            ["arch@example.com", "lead@example.com"]
        );
        assert_eq!(r.deciders("budget-overrun"), ["lead@example.com"]);
        assert!(rules(&[], &[]).deciders("x").is_empty());
    }

    #[test]
    fn git_config_replaces_the_same_pattern_of_the_layers() {
        let r = rules(
            &["decision=me@example.com"],
            &[("decision", "team@example.com"), ("*", "lead@example.com")],
        );
        assert_eq!(r.deciders("decision"), ["me@example.com"]);
        assert_eq!(r.deciders("contradiction"), ["lead@example.com"]);
    }

    #[test]
    fn entries_that_are_not_rules_warn() {
        let (r, warnings) = Rules::new(&["no-equals".into(), "=x@y".into(), "[=a@b".into()], &[]);
        assert!(r.is_empty());
        assert_eq!(warnings.len(), 3, "{warnings:?}");
    }

    #[test]
    fn a_value_is_one_address_or_it_is_ignored() {
        let hostile = [
            "pm@example.com\nBcc: evil@attacker.example",
            "a@x.com, evil@y.com",
            "$(touch pwned)@x.com",
            "`id`@x.com",
            "a b@x.com",
            "a@x.com;rm",
            "\"q\"@x.com",
            "no-at-sign",
            "@x.com",
            "a@",
            "a@@x.com",
            "a@-x.com",
            "a@x\u{1b}]0;t\u{7}.com",
        ];
        for value in hostile {
            let (r, warnings) = Rules::new(&[format!("*={value}")], &[]);
            assert!(r.is_empty(), "{value:?}");
            assert_eq!(warnings.len(), 1, "{value:?}");
        }
        for value in [
            "pm@example.com",
            "first.last+ucg@sub.example.co",
            "zoë@exämple.de",
        ] {
            let (r, warnings) = Rules::new(&[format!("*={value}")], &[]);
            assert_eq!(r.deciders("x"), [value], "{warnings:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_rule_text_is_read_without_panic(values: Vec<String>, kind: String) {
            let (r, _) = Rules::new(&values, &[]);
            let _ = r.deciders(&kind);
        }
    }
}
