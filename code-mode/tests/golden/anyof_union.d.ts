type T = string | number;
export {};
