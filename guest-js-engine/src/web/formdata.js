// FormData: a list of named entries, each a string or a File.
// Spec: https://xhr.spec.whatwg.org/#interface-formdata
// WPT: xhr/formdata (the table in the README)
//
// There are no forms in the sandbox: the constructor takes no form.
(function (host) {
  'use strict';
  const { usv, argumentsRequired, defineIterator, brand } = host.idl;
  const { Blob, File } = host.blob;
  const TypeErrorCtor = TypeError;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const blobType = uncurry(Object.getOwnPropertyDescriptor(Blob.prototype, 'type').get);
  const fileName = uncurry(Object.getOwnPropertyDescriptor(File.prototype, 'name').get);
  const fileLastModified = uncurry(Object.getOwnPropertyDescriptor(File.prototype, 'lastModified').get);

  function isBlob(value) {
    return value instanceof Blob;
  }

  // The standard's "create an entry": a Blob becomes a File, named
  // `filename`, its own name, or "blob".
  function entry(name, value, filename, hasFilename) {
    name = usv(name);
    if (!isBlob(value)) return [name, usv(value)];
    const isFile = value instanceof File;
    if (isFile && !hasFilename) return [name, value];
    const options = { type: blobType(value) };
    if (isFile) options.lastModified = fileLastModified(value);
    const named = hasFilename ? usv(filename) : isFile ? fileName(value) : 'blob';
    return [name, new File([value], named, options)];
  }

  // append/set's overloads: (name, string) or (name, Blob[, filename]).
  function entryOf(args, member) {
    argumentsRequired(args.length, 2, 'FormData', member);
    const [name, value, filename] = args;
    if (args.length >= 3 && !isBlob(value)) {
      throw new TypeErrorCtor(`FormData.${member}(): with a filename, the value must be a Blob`);
    }
    return entry(name, value, filename, args.length >= 3);
  }

  let listOf;

  class FormData {
    #list = [];

    constructor(form = undefined, submitter = null) {
      if (form !== undefined) throw new TypeErrorCtor('new FormData(): there are no form elements in the sandbox');
      if (submitter !== null && submitter !== undefined) {
        throw new TypeErrorCtor('new FormData(): there are no submitter elements in the sandbox');
      }
    }

    static {
      listOf = (value) => {
        if ((typeof value !== 'object' && typeof value !== 'function') || value === null || !(#list in value)) {
          throw new TypeErrorCtor('Illegal invocation');
        }
        return value.#list;
      };
    }

    append(name, value, filename = undefined) {
      const list = listOf(this);
      list[list.length] = entryOf(arguments, 'append');
    }

    delete(name) {
      const list = listOf(this);
      argumentsRequired(arguments.length, 1, 'FormData', 'delete');
      const key = usv(name);
      this.#list = list.filter(([n]) => n !== key);
    }

    get(name) {
      const list = listOf(this);
      argumentsRequired(arguments.length, 1, 'FormData', 'get');
      const key = usv(name);
      for (const [n, v] of list) if (n === key) return v;
      return null;
    }

    getAll(name) {
      const list = listOf(this);
      argumentsRequired(arguments.length, 1, 'FormData', 'getAll');
      const key = usv(name);
      const values = [];
      for (const [n, v] of list) if (n === key) values[values.length] = v;
      return values;
    }

    has(name) {
      const list = listOf(this);
      argumentsRequired(arguments.length, 1, 'FormData', 'has');
      const key = usv(name);
      return list.some(([n]) => n === key);
    }

    set(name, value, filename = undefined) {
      const list = listOf(this);
      const item = entryOf(arguments, 'set');
      const first = list.findIndex(([n]) => n === item[0]);
      if (first === -1) {
        list[list.length] = item;
        return;
      }
      list[first] = item;
      this.#list = list.filter(([n], i) => i <= first || n !== item[0]);
    }
  }

  defineIterator(FormData, 'FormData', (formData) => listOf(formData));

  // For bodies: a new FormData from entries already converted.
  function fromEntries(entries) {
    const formData = new FormData();
    const list = listOf(formData);
    for (let i = 0; i < entries.length; i++) list[list.length] = entries[i];
    return formData;
  }

  return { FormData: brand(FormData, 'FormData'), entriesOf: (formData) => listOf(formData), fromEntries };
})
