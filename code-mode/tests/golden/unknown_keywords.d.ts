type T = unknown;
export {};
