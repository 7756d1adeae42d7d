//! `git ucg config [KEY] [--json]`: the resolved `[workflow]` block and each value's origin layer.

use crate::cli::ConfigArgs;
use crate::context::Context;
use crate::error::Result;
use crate::output::print_json;
use std::io::Write;
use ucg_ultracode::config::{to_json, Config};

pub(crate) fn run(ctx: &Context, args: &ConfigArgs) -> Result<u8> {
    let config = ctx.config()?;
    config.validate()?;
    match &args.key {
        Some(key) => show_key(
            config,
            key.strip_prefix("workflow.").unwrap_or(key),
            args.json.on,
        ),
        None if args.json.on => print_json(&document(config)?),
        None => {
            let mut out = ctx.paged_output();
            write_listing(&mut out, config)?;
            out.finish()?;
            Ok(0)
        }
    }
}

fn show_key(config: &Config, key: &str, json: bool) -> Result<u8> {
    let (Some(entry), Some(value)) = (config.workflow.get(key), config.expanded(key)?) else {
        // Like `git config KEY`: an absent key is a negative answer, not a failure.
        if json {
            print_json(&serde_json::json!({
                "schema": "git-ucg.config/1", "key": key, "value": null, "origin": null,
            }))?;
        } else {
            eprintln!("workflow.{key} is not set in any layer");
        }
        return Ok(1);
    };
    if json {
        return print_json(&serde_json::json!({
            "schema": "git-ucg.config/1",
            "key": key,
            "value": to_json(&value),
            "origin": config.origin_label(entry),
        }));
    }
    let mut stdout = std::io::stdout().lock();
    // Scripts read one value per line: a string raw, an array one item per line.
    let items = match &value {
        toml::Value::Array(items) => items.as_slice(),
        one => std::slice::from_ref(one),
    };
    for item in items {
        match item {
            toml::Value::String(s) => writeln!(stdout, "{s}")?,
            other => writeln!(stdout, "{other}")?,
        }
    }
    stdout.flush()?;
    Ok(0)
}

fn write_listing(out: &mut impl Write, config: &Config) -> Result<()> {
    writeln!(out, "# project root: {}", config.project_root.display())?;
    for layer in &config.layers {
        let path = match layer.state {
            ucg_ultracode::config::LayerState::BuiltIn => "built-in defaults".to_string(),
            _ => layer.path.display().to_string(),
        };
        writeln!(
            out,
            "# {:<4} {path} ({})",
            layer.kind.name(),
            layer.state.name()
        )?;
    }
    writeln!(out, "[workflow]")?;
    // Unaligned on purpose: path values vary in length, and an aligned column would push every
    // comment past 80 columns as soon as one value is long.
    for (key, entry) in &config.workflow {
        let value = config
            .expanded(key)
            .ok()
            .flatten()
            .unwrap_or_else(|| entry.value.clone());
        writeln!(out, "{key} = {value}  # {}", config.origin_label(entry))?;
    }
    Ok(())
}

fn document(config: &Config) -> Result<serde_json::Value> {
    let mut workflow = serde_json::Map::new();
    let mut origins = serde_json::Map::new();
    for (key, entry) in &config.workflow {
        let value = config.expanded(key)?.unwrap_or_else(|| entry.value.clone());
        workflow.insert(key.clone(), to_json(&value));
        origins.insert(key.clone(), config.origin_label(entry).into());
    }
    let layers: Vec<_> = config
        .layers
        .iter()
        .map(|layer| {
            serde_json::json!({
                "layer": layer.kind.name(),
                "path": match layer.state {
                    ucg_ultracode::config::LayerState::BuiltIn => serde_json::Value::Null,
                    _ => layer.path.to_string_lossy().into(),
                },
                "state": layer.state.name(),
            })
        })
        .collect();
    Ok(serde_json::json!({
        "schema": "git-ucg.config/1",
        "project_root": config.project_root.to_string_lossy(),
        "ucg_root": config.ucg_root.as_ref().map(|p| p.to_string_lossy()),
        "layers": layers,
        "workflow": workflow,
        "origins": origins,
    }))
}
