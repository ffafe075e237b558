type T = string | number | boolean | null | { [key: string]: unknown } | unknown[];
export {};
