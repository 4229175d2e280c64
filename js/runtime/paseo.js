// `context.paseo` / `server.paseo`: the SDK a plugin uses to act on the daemon. Until the
// daemon trait is wired in, every member is present and rejects with an error naming it.
export function createPaseoApi() {
  const make = (path) =>
    new Proxy(function () {}, {
      get(_target, key) {
        if (typeof key === "symbol") return undefined;
        if (key === "then") return undefined; // a member path is not a promise
        return make(`${path}.${key}`);
      },
      apply(_target, _this, args) {
        const called = `${path}(${args.length ? "…" : ""})`;
        const error = new Error(`paseo${path} is not implemented by this daemon`);
        // A call may be awaited (then it rejects) or chained on (agents.ref(id).send()).
        return new Proxy(function () {}, {
          get(_t, key) {
            if (key === "then") return (_resolve, reject) => reject(error);
            if (typeof key === "symbol") return undefined;
            return make(`${called}.${key}`);
          },
          apply() { return Promise.reject(error); },
        });
      },
    });
  return make("");
}
