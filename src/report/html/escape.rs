//! Escaping for the HTML report: every string that comes from a report
//! (framework and scenario names, warnings, app paths, error texts) goes
//! through [`text`] before it reaches the page, so a framework named
//! `<script>…` is shown, never run. Data handed to the page's script goes
//! through [`json_in_script`].

/// `value` as HTML text or a quoted attribute value; control characters
/// other than line breaks are shown escaped (`\u{1b}`), as the terminal
/// report shows them.
pub fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// JSON made safe inside `<script type="application/json">`: `<`, `>` and
/// `&` become `\u003c`… (still the same JSON), so no string in it can end
/// the element or open a comment.
pub fn json_in_script(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_a_name_becomes_text() {
        assert_eq!(
            text("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(text("a\u{1b}[2J\nb"), "a\\u{1b}[2J\nb");
    }

    #[test]
    fn json_cannot_close_its_script_element() {
        let json = serde_json::json!({ "name": "</script><script>alert(1)</script>" }).to_string();
        let safe = json_in_script(&json);
        assert!(!safe.contains("</script"), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["name"], "</script><script>alert(1)</script>");
    }
}
