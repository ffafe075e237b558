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

  // ---- a default stream --------------------------------------------------

  function defaultTee(stream, cloneForBranch2) {
    const reader = acquireDefaultReader(stream);
    let reading = false;
    let readAgain = false;
    let canceled1 = false;
    let canceled2 = false;
    let reason1;
    let reason2;
    let branch1;
    let branch2;
    const cancelPromise = deferred();

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
            if (!canceled2 && cloneForBranch2) {
              try {
                chunk2 = host.clone.structuredClone(chunk);
              } catch (error) {
                defaultControllerError(branch1.controller, error);
                defaultControllerError(branch2.controller, error);
                cancelPromise.resolve(cancelStream(stream, error));
                return;
              }
            }
            if (!canceled1) defaultControllerEnqueue(branch1.controller, chunk1);
            if (!canceled2) defaultControllerEnqueue(branch2.controller, chunk2);
            reading = false;
            if (readAgain) pull();
          });
        },
        close() {
          reading = false;
          if (!canceled1) defaultControllerClose(branch1.controller);
          if (!canceled2) defaultControllerClose(branch2.controller);
          if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
        },
        error() {
          reading = false;
        },
      });
      return promiseResolve(undefined);
    }

    function cancel1(reason) {
      canceled1 = true;
      reason1 = reason;
      if (canceled2) cancelPromise.resolve(cancelStream(stream, [reason1, reason2]));
      return cancelPromise.promise;
    }

    function cancel2(reason) {
      canceled2 = true;
      reason2 = reason;
      if (canceled1) cancelPromise.resolve(cancelStream(stream, [reason1, reason2]));
      return cancelPromise.promise;
    }

    branch1 = createReadableStream(noop, pull, cancel1);
    branch2 = createReadableStream(noop, pull, cancel2);
    react(reader.closed.promise, undefined, (error) => {
      defaultControllerError(branch1.controller, error);
      defaultControllerError(branch2.controller, error);
      if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
    });
    return [branch1.public, branch2.public];
  }

  // ---- a byte stream -----------------------------------------------------

  function byteTee(stream) {
    let reader = acquireDefaultReader(stream);
    let reading = false;
    let readAgainForBranch1 = false;
    let readAgainForBranch2 = false;
    let canceled1 = false;
    let canceled2 = false;
    let reason1;
    let reason2;
    let branch1;
    let branch2;
    const cancelPromise = deferred();

    function forwardReaderError(thisReader) {
      react(thisReader.closed.promise, undefined, (error) => {
        if (thisReader !== reader) return;
        controllerError(branch1.controller, error);
        controllerError(branch2.controller, error);
        if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
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
            if (!canceled1 && !canceled2) {
              try {
                chunk2 = cloneChunk(chunk);
              } catch (error) {
                controllerError(branch1.controller, error);
                controllerError(branch2.controller, error);
                cancelPromise.resolve(cancelStream(stream, error));
                return;
              }
            }
            if (!canceled1) controllerEnqueue(branch1.controller, chunk1);
            if (!canceled2) controllerEnqueue(branch2.controller, chunk2);
            reading = false;
            if (readAgainForBranch1) pull1();
            else if (readAgainForBranch2) pull2();
          });
        },
        close() {
          reading = false;
          if (!canceled1) controllerClose(branch1.controller);
          if (!canceled2) controllerClose(branch2.controller);
          if (branch1.controller.pendingPullIntos.length > 0) respond(branch1.controller, 0);
          if (branch2.controller.pendingPullIntos.length > 0) respond(branch2.controller, 0);
          if (!canceled1 || !canceled2) cancelPromise.resolve(undefined);
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
      const byobBranch = forBranch2 ? branch2 : branch1;
      const otherBranch = forBranch2 ? branch1 : branch2;
      byobReaderRead(reader, view, 1, {
        chunk(chunk) {
          queueMicrotask(() => {
            readAgainForBranch1 = false;
            readAgainForBranch2 = false;
            const byobCanceled = forBranch2 ? canceled2 : canceled1;
            const otherCanceled = forBranch2 ? canceled1 : canceled2;
            if (!otherCanceled) {
              let clone;
              try {
                clone = cloneChunk(chunk);
              } catch (error) {
                controllerError(byobBranch.controller, error);
                controllerError(otherBranch.controller, error);
                cancelPromise.resolve(cancelStream(stream, error));
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
          const byobCanceled = forBranch2 ? canceled2 : canceled1;
          const otherCanceled = forBranch2 ? canceled1 : canceled2;
          if (!byobCanceled) controllerClose(byobBranch.controller);
          if (!otherCanceled) controllerClose(otherBranch.controller);
          if (chunk !== undefined) {
            if (!byobCanceled) respondWithNewView(byobBranch.controller, chunk);
            if (!otherCanceled && otherBranch.controller.pendingPullIntos.length > 0) respond(otherBranch.controller, 0);
          }
          if (!byobCanceled || !otherCanceled) cancelPromise.resolve(undefined);
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

    const pull1 = () => pullBranch(branch1, false);
    const pull2 = () => pullBranch(branch2, true);

    function cancel1(reason) {
      canceled1 = true;
      reason1 = reason;
      if (canceled2) cancelPromise.resolve(cancelStream(stream, [reason1, reason2]));
      return cancelPromise.promise;
    }

    function cancel2(reason) {
      canceled2 = true;
      reason2 = reason;
      if (canceled1) cancelPromise.resolve(cancelStream(stream, [reason1, reason2]));
      return cancelPromise.promise;
    }

    branch1 = bytes.createByteStream(() => undefined, pull1, cancel1);
    branch2 = bytes.createByteStream(() => undefined, pull2, cancel2);
    forwardReaderError(reader);
    return [branch1.public, branch2.public];
  }

  // ReadableStreamTee: `cloneForBranch2` (a default stream's chunks given
  // to the second branch as structured clones) is the Fetch Standard's.
  function tee(stream, cloneForBranch2) {
    if (stream.controller.kind === 'bytes') return byteTee(stream);
    return defaultTee(stream, cloneForBranch2);
  }

  return { tee };
})
