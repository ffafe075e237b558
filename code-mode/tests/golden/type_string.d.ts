type T = string;
export {};
