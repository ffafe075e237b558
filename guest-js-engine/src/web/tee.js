// The tee of a ReadableStream: two branches that each read every chunk
// of the stream, for a default stream (ReadableStreamDefaultTee) and for
// a byte stream (ReadableByteStreamTee), whose branches are byte streams
// and whose chunks are copied for the second branch.
// Spec: https://streams.spec.whatwg.org/#readable-stream-tee
// WPT: streams/readable-streams/tee.any.js,
//      streams/readable-byte-streams/tee.any.js (the table in the README)
(function (host) {
  'use strict';
  const r = host.readable.internals;
  const bytes = host.bytes;
  const b = bytes.internals;
  const {
    noop, deferred, react, acquireDefaultReader, defaultReaderRead, defaultReaderRelease, cancelStream,
    createReadableStream, defaultControllerClose, defaultControllerEnqueue, defaultControllerError,
  } = r;
  const { controllerEnqueue, controllerClose, controllerError, respond, acquireBYOBReader } = bytes;
  const { viewParts, getBYOBRequest, respondWithNewView, byobReaderRead, byobReaderRelease } = b;
  const Uint8ArrayCtor = Uint8Array;
  const promiseResolve = Promise.resolve.bind(Promise);
  const queueMicrotask = globalThis.queueMicrotask;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const bufferSlice = uncurry(ArrayBuffer.prototype.slice);

  // ---- what both tees share ----------------------------------------------

  // The branches' cancellation and their end. The stream is cancelled with
  // both reasons once both branches are; the promise each branch's cancel
  // returns settles then, or when the stream ends first. `errorController`
  // is the branches' kind's ReadableStream*ControllerError.
  function teeBranches(stream, errorController) {
    const t = { canceled1: false, canceled2: false, branch1: undefined, branch2: undefined };
    let reason1;
    let reason2;
    const cancelPromise = deferred();

    function cancelled() {
      cancelPromise.resolve(cancelStream(stream, [reason1, reason2]));
    }
    t.cancel1 = (reason) => {
      t.canceled1 = true;
      reason1 = reason;
      if (t.canceled2) cancelled();
      return cancelPromise.promise;
    };
    t.cancel2 = (reason) => {
      t.canceled2 = true;
      reason2 = reason;
      if (t.canceled1) cancelled();
      return cancelPromise.promise;
    };
    // The stream closed or errored: a branch's pending cancel is done.
    t.ended = () => {
      if (!t.canceled1 || !t.canceled2) cancelPromise.resolve(undefined);
    };
    // The stream errored: so do both branches.
    t.errored = (error) => {
      errorController(t.branch1.controller, error);
      errorController(t.branch2.controller, error);
      t.ended();
    };
    // A chunk could not be cloned: both branches error (`first` first), and
    // the stream is cancelled with that error.
    t.cloneFailed = (error, first = t.branch1, second = t.branch2) => {
      errorController(first.controller, error);
      errorController(second.controller, error);
      cancelPromise.resolve(cancelStream(stream, error));
    };
    return t;
  }

  // ---- a default stream --------------------------------------------------

  function defaultTee(stream, cloneForBranch2) {
    const reader = acquireDefaultReader(stream);
    const t = teeBranches(stream, defaultControllerError);
    let reading = false;
    let readAgain = false;

    function pull() {
      if (reading) {
        readAgain = true;
        return promiseResolve(undefined);
      }
      reading = true;
      defaultReaderRead(reader, {
        chunk(chunk) {
          // Later in a microtask, as the standard says, so that an error
          // reported at once is seen first.
          queueMicrotask(() => {
            readAgain = false;
            const chunk1 = chunk;
            let chunk2 = chunk;
            if (!t.canceled2 && cloneForBranch2) {
              try {
                chunk2 = host.clone.structuredClone(chunk);
              } catch (error) {
                t.cloneFailed(error);
                return;
              }
            }
            if (!t.canceled1) defaultControllerEnqueue(t.branch1.controller, chunk1);
            if (!t.canceled2) defaultControllerEnqueue(t.branch2.controller, chunk2);
            reading = false;
            if (readAgain) pull();
          });
        },
        close() {
          reading = false;
          if (!t.canceled1) defaultControllerClose(t.branch1.controller);
          if (!t.canceled2) defaultControllerClose(t.branch2.controller);
          t.ended();
        },
        error() {
          reading = false;
        },
      });
      return promiseResolve(undefined);
    }

    t.branch1 = createReadableStream(noop, pull, t.cancel1);
    t.branch2 = createReadableStream(noop, pull, t.cancel2);
    react(reader.closed.promise, undefined, t.errored);
    return [t.branch1.public, t.branch2.public];
  }

  // ---- a byte stream -----------------------------------------------------

  function byteTee(stream) {
    let reader = acquireDefaultReader(stream);
    const t = teeBranches(stream, controllerError);
    let reading = false;
    let readAgainForBranch1 = false;
    let readAgainForBranch2 = false;

    function forwardReaderError(thisReader) {
      react(thisReader.closed.promise, undefined, (error) => {
        if (thisReader === reader) t.errored(error);
      });
    }

    function cloneChunk(chunk) {
      const parts = viewParts(chunk);
      return new Uint8ArrayCtor(bufferSlice(parts.buffer, parts.byteOffset, parts.byteOffset + parts.byteLength));
    }

    function pullWithDefaultReader() {
      if (reader.kind === 'byob') {
        byobReaderRelease(reader);
        reader = acquireDefaultReader(stream);
        forwardReaderError(reader);
      }
      defaultReaderRead(reader, {
        chunk(chunk) {
          queueMicrotask(() => {
            readAgainForBranch1 = false;
            readAgainForBranch2 = false;
            const chunk1 = chunk;
            let chunk2 = chunk;
            if (!t.canceled1 && !t.canceled2) {
              try {
                chunk2 = cloneChunk(chunk);
              } catch (error) {
                t.cloneFailed(error);
                return;
              }
            }
            if (!t.canceled1) controllerEnqueue(t.branch1.controller, chunk1);
            if (!t.canceled2) controllerEnqueue(t.branch2.controller, chunk2);
            reading = false;
            if (readAgainForBranch1) pull1();
            else if (readAgainForBranch2) pull2();
          });
        },
        close() {
          reading = false;
          if (!t.canceled1) controllerClose(t.branch1.controller);
          if (!t.canceled2) controllerClose(t.branch2.controller);
          if (t.branch1.controller.pendingPullIntos.length > 0) respond(t.branch1.controller, 0);
          if (t.branch2.controller.pendingPullIntos.length > 0) respond(t.branch2.controller, 0);
          t.ended();
        },
        error() {
          reading = false;
        },
      });
    }

    function pullWithBYOBReader(view, forBranch2) {
      if (reader.kind === 'default') {
        defaultReaderRelease(reader);
        reader = acquireBYOBReader(stream);
        forwardReaderError(reader);
      }
      const byobBranch = forBranch2 ? t.branch2 : t.branch1;
      const otherBranch = forBranch2 ? t.branch1 : t.branch2;
      byobReaderRead(reader, view, 1, {
        chunk(chunk) {
          queueMicrotask(() => {
            readAgainForBranch1 = false;
            readAgainForBranch2 = false;
            const byobCanceled = forBranch2 ? t.canceled2 : t.canceled1;
            const otherCanceled = forBranch2 ? t.canceled1 : t.canceled2;
            if (!otherCanceled) {
              let clone;
              try {
                clone = cloneChunk(chunk);
              } catch (error) {
                t.cloneFailed(error, byobBranch, otherBranch);
                return;
              }
              if (!byobCanceled) respondWithNewView(byobBranch.controller, chunk);
              controllerEnqueue(otherBranch.controller, clone);
            } else if (!byobCanceled) {
              respondWithNewView(byobBranch.controller, chunk);
            }
            reading = false;
            if (readAgainForBranch1) pull1();
            else if (readAgainForBranch2) pull2();
          });
        },
        close(chunk) {
          reading = false;
          const byobCanceled = forBranch2 ? t.canceled2 : t.canceled1;
          const otherCanceled = forBranch2 ? t.canceled1 : t.canceled2;
          if (!byobCanceled) controllerClose(byobBranch.controller);
          if (!otherCanceled) controllerClose(otherBranch.controller);
          if (chunk !== undefined) {
            if (!byobCanceled) respondWithNewView(byobBranch.controller, chunk);
            if (!otherCanceled && otherBranch.controller.pendingPullIntos.length > 0) respond(otherBranch.controller, 0);
          }
          t.ended();
        },
        error() {
          reading = false;
        },
      });
    }

    function pullBranch(branch, forBranch2) {
      if (reading) {
        if (forBranch2) readAgainForBranch2 = true;
        else readAgainForBranch1 = true;
        return promiseResolve(undefined);
      }
      reading = true;
      const byobRequest = getBYOBRequest(branch.controller);
      if (byobRequest === null) pullWithDefaultReader();
      else pullWithBYOBReader(b.requestView(byobRequest), forBranch2);
      return promiseResolve(undefined);
    }

    const pull1 = () => pullBranch(t.branch1, false);
    const pull2 = () => pullBranch(t.branch2, true);

    t.branch1 = bytes.createByteStream(() => undefined, pull1, t.cancel1);
    t.branch2 = bytes.createByteStream(() => undefined, pull2, t.cancel2);
    forwardReaderError(reader);
    return [t.branch1.public, t.branch2.public];
  }

  // ReadableStreamTee: `cloneForBranch2` (a default stream's chunks given
  // to the second branch as structured clones) is the Fetch Standard's.
  function tee(stream, cloneForBranch2) {
    if (stream.controller.kind === 'bytes') return byteTee(stream);
    return defaultTee(stream, cloneForBranch2);
  }

  return { tee };
})
