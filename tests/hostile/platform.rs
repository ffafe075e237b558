//! The web platform's surface, attacked: huge inputs to the natives behind
//! it (URL, TextDecoder, the codecs, Intl), deep or cyclic clones, queues
//! that never drain, output the console must cap, and the error path that
//! names a callee.

use super::{Case, Kind, case};

pub(super) fn surface(cases: &mut Vec<Case>) {
    use Kind::*;
    cases.push(case(
        "platform: URL with megabytes of path",
        "return new URL('https://example.com/' + 'x'.repeat(8e6)).pathname.length",
        Ok,
        "8000001",
    ));
    cases.push(case(
        "platform: URL with megabytes of garbage",
        "try { new URL('\\u0000'.repeat(4e6) + ':/\\ud800'); return 'parsed' } catch (e) { return e.constructor.name }",
        Ok,
        "TypeError",
    ));
    cases.push(case(
        "platform: TextDecoder of 4 MiB of invalid UTF-8",
        "const b = new Uint8Array(4 << 20).fill(0xed); return new TextDecoder().decode(b).length",
        Ok,
        "4194304",
    ));
    cases.push(case(
        "platform: TextDecoder past the memory cap",
        "const parts = []; const b = new Uint8Array(8 << 20).fill(97); for (;;) parts.push(new TextDecoder().decode(b) + '')",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case(
        "platform: structuredClone 50,000 deep",
        "let o = {}; for (let i = 0; i < 50000; i++) o = { o }; let c = structuredClone(o), n = 0; while (c.o) { c = c.o; n++ } return n",
        Ok,
        "50000",
    ));
    cases.push(case(
        "platform: structuredClone of a cycle",
        "const a = { b: {} }; a.b.a = a; const c = structuredClone(a); return c.b.a === c",
        Ok,
        "true",
    ));
    cases.push(case(
        "platform: structuredClone of what cannot be cloned",
        "try { structuredClone({ f() {} }) } catch (e) { return e.name }",
        Ok,
        "DataCloneError",
    ));
    cases.push(case(
        "platform: console.table of 200,000 rows",
        "console.table(Array.from({ length: 2e5 }, (_, i) => ({ i, sq: i * i }))); return 'printed'",
        Ok,
        "printed",
    ));
    cases.push(case(
        "platform: a stream that is never read",
        "new ReadableStream({ start(c) { for (;;) c.enqueue(new Uint8Array(1 << 20)) } }); return 1",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case(
        "platform: corrupt input to every decompressor",
        "const out = []; for (const f of ['gzip', 'deflate', 'deflate-raw']) { try { for await (const _ of ReadableStream.from([new Uint8Array(4096).fill(0xff)]).pipeThrough(new DecompressionStream(f))) {} out.push('none') } catch (e) { out.push(e.constructor.name) } } return out.join()",
        Ok,
        "TypeError,TypeError,TypeError",
    ));
    cases.push(case(
        "platform: more codecs than may be open",
        "const s = []; try { for (let i = 0; i < 100; i++) s.push(new CompressionStream('gzip')) } catch (e) { return e.message }",
        Ok,
        "finish or cancel one first",
    ));
    cases.push(case(
        "platform: a megabyte-long callee that is not a function",
        "const o = {}; try { eval('o.' + 'p'.repeat(1 << 20) + '()') } catch (e) { return e.message.length < 256 }",
        Ok,
        "true",
    ));
    cases.push(case(
        "platform: a body read twice",
        "const r = new Response('x'); await r.text(); try { await r.text() } catch (e) { return e.constructor.name }",
        Ok,
        "TypeError",
    ));
    cases.push(case(
        "platform: Intl with invalid locales and options",
        "const out = []; for (const f of [() => new Intl.NumberFormat('\\ud800'), () => new Intl.DateTimeFormat('en', { timeZone: '\\u0000'.repeat(1e6) }), () => new Intl.Collator('en', { sensitivity: 'x'.repeat(1e6) }), () => Intl.getCanonicalLocales({ length: 2 ** 53 - 1, 0: 5 })]) { try { f(); out.push('none') } catch (e) { out.push(e.name) } } return out.join()",
        Ok,
        "RangeError,RangeError,RangeError,TypeError",
    ));
    cases.push(case(
        "platform: Intl formatting a million digits",
        "const f = new Intl.NumberFormat('en'); let big; try { big = BigInt('9'.repeat(5000)).toLocaleString() } catch (e) { big = e.name } return [big, f.format('9'.repeat(1e6))].join()",
        Ok,
        "RangeError,∞",
    ));
    cases.push(case(
        "platform: Intl segmenting and collating megabytes",
        "const text = 'ab, cd. \\ud800\\u0000 '.repeat(2e4); const words = [...new Intl.Segmenter('en', { granularity: 'word' }).segment(text)].length; return [words, text.localeCompare(text + 'x')].join()",
        Ok,
        ",-1",
    ));
    cases.push(case(
        "platform: a list of 100,000 strings to ListFormat",
        "return new Intl.ListFormat('en').format(Array.from({ length: 1e5 }, () => 'x')).length",
        Ok,
        "300002",
    ));
}
