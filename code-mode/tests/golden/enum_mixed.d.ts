type T = "x" | 1 | -2.5 | true | false | null | { k: "v"; "my-key": [1, "a"] } | [1, "a"] | { [key: string]: never } | [];
export {};
