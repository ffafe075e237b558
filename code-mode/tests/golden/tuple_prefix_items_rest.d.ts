type T = [string, number | null, ...(boolean | string)[]];
export {};
