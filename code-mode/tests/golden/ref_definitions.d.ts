type T = ("red" | "green")[];
export {};
