type T = "read" | "write" | "with \"quotes\"" | "new\nline" | "back\\slash" | "tab\there" | "</script>" | "\u2028";
export {};
