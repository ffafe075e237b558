// fetch: the Fetch Standard's fetch method. The host sends the request,
// if its network policy allows it (by default it allows nothing), follows
// redirects itself (checking every hop), and answers with the whole
// response, read to its end under the policy's caps; the body is then read
// from the sandbox's memory. A rejection's message is the host's: which
// policy refused, which cap was reached.
// Spec: https://fetch.spec.whatwg.org/#fetch-method
(function (host) {
  'use strict';
  const { argumentsRequired } = host.idl;
  const { sorted: sortedHeaders } = host.headers;
  const { signals } = host.abort;
  const { Request, internals: { requestOf, responseOfHost } } = host.fetch;
  const { consume } = host.body;
  const streams = host.readable.internals;
  const { hostFetch, cancelFetch } = host.natives;
  const TypeErrorCtor = TypeError;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const promiseThen = uncurry(Promise.prototype.then);
  const promiseReject = Promise.reject.bind(Promise);
  const ErrorMessage = (error) => {
    const object = (typeof error === 'object' && error !== null) || typeof error === 'function';
    return object && typeof error.message === 'string' ? error.message : `${error}`;
  };

  function fetch(input, init = undefined) {
    let r;
    try {
      argumentsRequired(arguments.length, 1, 'globalThis', 'fetch');
      r = requestOf(new Request(input, init));
    } catch (error) {
      return promiseReject(error);
    }
    const signal = r.signal;
    if (signal !== null && signals.aborted(signal)) return promiseReject(signals.reason(signal));
    const d = streams.deferred();
    let done = false;
    let onAbort = null;
    const finish = () => {
      done = true;
      if (onAbort !== null) signals.remove(signal, onAbort);
    };
    const fail = (error) => {
      if (done) return;
      finish();
      d.reject(error);
    };
    const send = (body) => {
      if (done) return;
      const headers = sortedHeaders(r.headers);
      let started;
      try {
        started = hostFetch(r.method, r.url, headers, r.redirect, body);
      } catch (error) {
        fail(new TypeErrorCtor(`fetch ${r.method} ${r.url}: ${ErrorMessage(error)}`));
        return;
      }
      const id = started[0];
      if (signal !== null) {
        onAbort = () => {
          if (done) return;
          cancelFetch(id);
          fail(signals.reason(signal));
        };
        signals.add(signal, onAbort);
      }
      promiseThen(started[1], (head) => {
        if (done) return;
        let response;
        try {
          response = responseOfHost(head, r.method);
        } catch (error) {
          fail(new TypeErrorCtor(`fetch ${r.method} ${r.url}: the response is unusable: ${ErrorMessage(error)}`));
          return;
        }
        finish();
        d.resolve(response);
      }, (error) => fail(new TypeErrorCtor(ErrorMessage(error))));
    };
    if (r.body === null) send(undefined);
    else promiseThen(consume(r.body, 'fetch()'), send, fail);
    return d.promise;
  }

  return { fetch };
})
