enum Color { Red, Green = "g", Blue = 4 }
namespace N { export const a = 1; }
interface I<T extends object = {}> { readonly x?: T; [k: string]: unknown }
abstract class A<T> implements I<T> { private constructor(public readonly y: number) { super(); } abstract m(): void; }
declare const d: number;
function f<T,>(this: Window, a?: T, ...rest: Array<keyof T>): asserts a is T {}
let x = <number>(1 as unknown satisfies number)!;
const g = f<string>;
type C<T> = T extends (infer U)[] ? U : never;
return [Color.Blue, N.a];
