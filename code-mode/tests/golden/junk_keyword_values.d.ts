type T = { [key: string]: unknown } | unknown[];
export {};
