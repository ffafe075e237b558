type T = { [key: string]: unknown };
export {};
