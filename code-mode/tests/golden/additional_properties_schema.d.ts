type T = { [key: string]: number };
export {};
