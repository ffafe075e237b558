type T = string | null;
export {};
