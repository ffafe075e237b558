// Piping: ReadableStream's pipeTo and pipeThrough.
// Spec: https://streams.spec.whatwg.org/#readable-stream-pipe-to
// WPT: streams/piping (the table in the README)
//
// A pipe reads a chunk only when the destination's writer is ready (no
// backpressure), writes it without waiting, and watches both streams: an
// error or a close on either side shuts the pipe down as the standard
// says, after the writes already started have finished.
(function (host) {
  'use strict';
  const {
    noop, isObject, deferred, setHandled, react, transform, streamOf, peekStream, isLocked, cancelStream,
    acquireDefaultReader, defaultReaderRead, defaultReaderRelease,
  } = host.readable.internals;
  const writable = host.writable.internals;
  const { signals } = host.abort;
  const TypeErrorCtor = TypeError;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const PromiseAll = Promise.all.bind(Promise);

  // The StreamPipeOptions dictionary, members in order.
  function pipeOptions(options, what) {
    if (options === undefined || options === null) {
      return { preventAbort: false, preventCancel: false, preventClose: false, signal: undefined };
    }
    if (!isObject(options)) throw new TypeErrorCtor(`${what}: the options must be an object`);
    const preventAbort = !!options.preventAbort;
    const preventCancel = !!options.preventCancel;
    const preventClose = !!options.preventClose;
    const signal = options.signal;
    if (signal !== undefined && !signals.isSignal(signal)) {
      throw new TypeErrorCtor(`${what}: the signal must be an AbortSignal`);
    }
    return { preventAbort, preventCancel, preventClose, signal };
  }

  function pipe(source, dest, { preventClose, preventAbort, preventCancel, signal }) {
    const reader = acquireDefaultReader(source);
    const writer = writable.acquireWriter(dest);
    source.disturbed = true;
    let shuttingDown = false;
    let currentWrite = promiseResolve(undefined);
    const result = deferred();
    let abortAlgorithm;

    function finalize(isError, error) {
      writable.writerRelease(writer);
      defaultReaderRelease(reader);
      if (signal !== undefined) signals.remove(signal, abortAlgorithm);
      if (isError) result.reject(error);
      else result.resolve(undefined);
    }

    // Every chunk read is written before the pipe ends.
    function writesFinished() {
      const write = currentWrite;
      return transform(write, () => (write !== currentWrite ? writesFinished() : undefined));
    }

    function afterWrites(then) {
      if (dest.state === 'writable' && !writable.closeQueuedOrInFlight(dest)) react(writesFinished(), then);
      else then();
    }

    function shutdownWithAction(action, isError, error) {
      if (shuttingDown) return;
      shuttingDown = true;
      afterWrites(() => {
        let done;
        try {
          done = promiseResolve(action());
        } catch (thrown) {
          done = promiseReject(thrown);
        }
        react(done, () => finalize(isError, error), (newError) => finalize(true, newError));
      });
    }

    function shutdown(isError, error) {
      if (shuttingDown) return;
      shuttingDown = true;
      afterWrites(() => finalize(isError, error));
    }

    if (signal !== undefined) {
      abortAlgorithm = () => {
        const error = signals.reason(signal);
        shutdownWithAction(() => {
          const actions = [];
          if (!preventAbort) {
            actions[actions.length] = dest.state === 'writable' ? writable.abortStream(dest, error) : promiseResolve(undefined);
          }
          if (!preventCancel) {
            actions[actions.length] = source.state === 'readable' ? cancelStream(source, error) : promiseResolve(undefined);
          }
          return PromiseAll(actions);
        }, true, error);
      };
      if (signals.aborted(signal)) {
        abortAlgorithm();
        return result.promise;
      }
      signals.add(signal, abortAlgorithm);
    }

    // One step: wait for the writer, read a chunk, start writing it.
    // Resolves to true when there is nothing more to read.
    function step() {
      if (shuttingDown) return promiseResolve(true);
      return transform(writer.ready.promise, () => {
        if (shuttingDown) return true;
        const d = deferred();
        defaultReaderRead(reader, {
          chunk(chunk) {
            currentWrite = transform(writable.writerWrite(writer, chunk), undefined, noop);
            d.resolve(false);
          },
          close: () => d.resolve(true),
          error: (error) => d.reject(error),
        });
        return d.promise;
      });
    }

    function loop(done) {
      if (done) return;
      react(step(), loop, noop);
    }

    // Errors go forward: an errored source aborts the destination.
    const sourceErrored = (error) => {
      if (!preventAbort) shutdownWithAction(() => writable.abortStream(dest, error), true, error);
      else shutdown(true, error);
    };
    if (source.state === 'errored') sourceErrored(source.storedError);
    else react(reader.closed.promise, undefined, sourceErrored);

    // Errors go backward: an errored destination cancels the source.
    const destErrored = (error) => {
      if (!preventCancel) shutdownWithAction(() => cancelStream(source, error), true, error);
      else shutdown(true, error);
    };
    if (dest.state === 'errored') destErrored(dest.storedError);
    else react(writer.closed.promise, undefined, destErrored);

    // Closing goes forward.
    const sourceClosed = () => {
      if (!preventClose) shutdownWithAction(() => writable.writerCloseWithErrorPropagation(writer), false);
      else shutdown(false);
    };
    if (source.state === 'closed') sourceClosed();
    else react(reader.closed.promise, sourceClosed, undefined);

    // Closing goes backward.
    if (writable.closeQueuedOrInFlight(dest) || dest.state === 'closed') {
      const error = new TypeErrorCtor('the destination stream closed before all the data was piped to it');
      if (!preventCancel) shutdownWithAction(() => cancelStream(source, error), true, error);
      else shutdown(true, error);
    }

    loop(false);
    return result.promise;
  }

  function pipeTo(source, destination, options, count) {
    if (count < 1) return promiseReject(new TypeErrorCtor('ReadableStream.pipeTo() takes 1 argument (got 0)'));
    const dest = writable.peekStream(destination);
    if (dest === undefined) return promiseReject(new TypeErrorCtor('ReadableStream.pipeTo() takes a WritableStream'));
    let parsed;
    try {
      parsed = pipeOptions(options, 'ReadableStream.pipeTo()');
    } catch (error) {
      return promiseReject(error);
    }
    if (isLocked(source)) return promiseReject(new TypeErrorCtor('ReadableStream.pipeTo(): the stream is locked to a reader'));
    if (writable.isLocked(dest)) {
      return promiseReject(new TypeErrorCtor('ReadableStream.pipeTo(): the destination is locked to a writer'));
    }
    return pipe(source, dest, parsed);
  }

  // The ReadableWritablePair dictionary: readable, then writable.
  function pipeThrough(source, pair, options) {
    const what = 'ReadableStream.pipeThrough()';
    if (!isObject(pair)) throw new TypeErrorCtor(`${what} takes an object with readable and writable`);
    const readable = pair.readable;
    if (peekStream(readable) === undefined) throw new TypeErrorCtor(`${what}: readable must be a ReadableStream`);
    const writableStream = pair.writable;
    const dest = writable.peekStream(writableStream);
    if (dest === undefined) throw new TypeErrorCtor(`${what}: writable must be a WritableStream`);
    const parsed = pipeOptions(options, what);
    if (isLocked(source)) throw new TypeErrorCtor(`${what}: the stream is locked to a reader`);
    if (writable.isLocked(dest)) throw new TypeErrorCtor(`${what}: the writable side is locked to a writer`);
    setHandled(pipe(source, dest, parsed));
    streamOf(readable);
    return readable;
  }

  return { pipeTo, pipeThrough };
})
