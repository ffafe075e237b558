return "\u{1F600}".slice(0, 1) + "\uD800" + "日本語"
