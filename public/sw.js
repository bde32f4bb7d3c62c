/*
 * Nuvara²'s service worker (docs/decisions/098). It makes the app installable
 * and says clearly when the device is offline, and it keeps nothing of
 * anyone's: only the app's static files are cached (the offline page, the
 * icons, and the build's hashed scripts and styles). Pages and API answers
 * always go to the network and are never stored. A sign-out, a sign-out
 * everywhere or an account deletion seen from this device empties the cache.
 *
 * It also shows the notice that a reply is done (docs/decisions/101): the
 * server sends it only while none of the user's tabs is visible, and the
 * worker shows nothing if a tab of the app has the focus anyway. A click
 * focuses a tab already on that chat, or any tab of the app, or opens one.
 */
const CACHE = "nuvara-shell-v1";
const OFFLINE_PAGE = "/offline.html";
const SHELL = [OFFLINE_PAGE, "/favicon.svg", "/icons/icon-192.png", "/manifest.webmanifest"];
/** The build's files are named by their content: a name never changes what it holds. */
const BUILD = "/build/";
/** Enough for a few deploys' worth of scripts; the oldest go first. */
const MAX_BUILD_FILES = 300;
const SESSION_ENDS = new Set(["/api/auth/logout", "/api/account/sign-out-everywhere", "/api/account/delete"]);

self.addEventListener("install", (event) => {
  event.waitUntil(fillShell().then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (SESSION_ENDS.has(url.pathname)) {
    event.waitUntil(caches.delete(CACHE).then(fillShell));
    return;
  }
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => offlinePage()));
    return;
  }
  if (url.pathname.startsWith(BUILD) && !url.search) event.respondWith(cacheFirst(event));
});

self.addEventListener("push", (event) => {
  event.waitUntil(showNotice(event.data));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openChat(event.notification.data?.url));
});

/** The server's message: {title, body, url, tag}; anything else is not ours to show. */
function readNotice(data) {
  try {
    const notice = data?.json();
    if (typeof notice?.title !== "string" || typeof notice?.url !== "string") return null;
    return notice;
  } catch {
    return null;
  }
}

async function showNotice(data) {
  const notice = readNotice(data);
  if (!notice) return;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  if (windows.some((client) => client.focused)) return;
  await self.registration.showNotification(notice.title, {
    body: notice.body,
    tag: notice.tag,
    icon: "/icons/icon-192.png",
    data: { url: notice.url },
  });
}

/** Only the app's own chats: a message's url is a path under /nuvara. */
async function openChat(url) {
  const target = new URL(typeof url === "string" && url.startsWith("/nuvara") ? url : "/nuvara", self.location.origin);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const onChat = windows.find((client) => new URL(client.url).pathname === target.pathname);
  if (onChat) return onChat.focus();
  const any = windows.find((client) => new URL(client.url).origin === target.origin && "navigate" in client);
  if (any) {
    const focused = await any.focus();
    return focused.navigate(target.href);
  }
  return self.clients.openWindow(target.href);
}

function fillShell() {
  return caches.open(CACHE).then((cache) => cache.addAll(SHELL));
}

async function offlinePage() {
  const cached = await caches.match(OFFLINE_PAGE);
  return cached ?? new Response("You're offline.", { status: 503, headers: { "Content-Type": "text/plain" } });
}

async function cacheFirst(event) {
  const cached = await caches.match(event.request);
  if (cached) return cached;
  const response = await fetch(event.request);
  if (response.ok) event.waitUntil(keep(event.request, response.clone()));
  return response;
}

async function keep(request, response) {
  const cache = await caches.open(CACHE);
  await cache.put(request, response);
  await trimBuildFiles(cache);
}

async function trimBuildFiles(cache) {
  const built = (await cache.keys()).filter((request) => new URL(request.url).pathname.startsWith(BUILD));
  await Promise.all(
    built.slice(0, Math.max(0, built.length - MAX_BUILD_FILES)).map((request) => cache.delete(request)),
  );
}
