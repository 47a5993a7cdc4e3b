//! The input of Claude Code's `statusLine` command: a JSON object on
//! stdin (`session_id`, `transcript_path`, `cwd`, `model{id,display_name}`,
//! …), of which the status line reads the session, its transcript and the
//! model's name ([`crate::format::Profile::status_line`]).

use serde_json::Value;

use crate::format::StatusInput;

/// Reads the statusLine JSON (the whole of stdin): a key that is missing,
/// not a string or empty is `None`; what is no such object is an error.
pub(super) fn read(text: &[u8]) -> Result<StatusInput, String> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err("no statusLine JSON on stdin: costs of no session".to_owned());
    }
    let v: Value = match serde_json::from_slice(text) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Err("stdin is not a JSON object (Claude Code's statusLine JSON)".to_owned()),
        Err(e) => return Err(format!("stdin is not Claude Code's statusLine JSON: {e}")),
    };
    let text = |path: &[&str]| {
        let mut at = &v;
        for p in path {
            at = at.get(p)?;
        }
        at.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
    };
    Ok(StatusInput {
        session: text(&["session_id"]),
        transcript: text(&["transcript_path"]),
        model: text(&["model", "display_name"]).or_else(|| text(&["model", "id"])),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_display_name_wins_over_the_id_and_empty_keys_are_none() {
        let got = read(br#"{"session_id":"s1","transcript_path":"","model":{"id":"m","display_name":"Opus"}}"#);
        let want = StatusInput { session: Some("s1".into()), transcript: None, model: Some("Opus".into()) };
        assert_eq!(got, Ok(want));
        assert_eq!(read(br#"{"model":{"id":"m"}}"#).unwrap().model.as_deref(), Some("m"));
        assert_eq!(read(b" \n").unwrap_err(), "no statusLine JSON on stdin: costs of no session");
    }
}
