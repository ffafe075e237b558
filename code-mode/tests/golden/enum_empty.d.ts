type T = never;
export {};
