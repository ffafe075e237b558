type T = { [key: string]: never };
export {};
