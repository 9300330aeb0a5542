// Inlined by prerender.mjs into the page sent for every /fleet/:id (a classic script, run before
// the app's JavaScript has even arrived): asks for the vehicle at once, with the anon key of
// /config.json (preloaded by the page), and preloads its main photo when the answer comes, so
// neither waits for the app. The page's query takes the answer (`earlyVehicle` in
// src/features/vehicles/api/vehicle.ts); anything unexpected leaves it to the app.
(function () {
  var m = /^\/fleet\/([0-9a-f-]{36})\/?$/i.exec(location.pathname);
  if (!m || location.search || !window.fetch) return;
  var id = m[1].toLowerCase();
  var api = location.origin;
  var columns = '__VEHICLE_COLUMNS__';
  var response = fetch('/config.json')
    .then(function (r) {
      return r.json();
    })
    .then(function (c) {
      return fetch(api + '/rest/v1/vehicles?select=' + encodeURIComponent(columns) + '&id=eq.' + id, {
        headers: { apikey: c.anonKey, Authorization: 'Bearer ' + c.anonKey, Accept: 'application/json' },
      });
    })
    .then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    })
    .then(function (rows) {
      var v = rows[0] || null;
      var photo = v && mainPhoto(v);
      if (photo) {
        var link = document.createElement('link');
        link.rel = 'preload';
        link.as = 'image';
        link.href = thumbnail(photo.charAt(0) === '/' ? api + photo : photo);
        link.setAttribute('fetchpriority', 'high');
        document.head.appendChild(link);
      }
      return v;
    });
  response.catch(function () {});
  window.__earlyVehicle = { id: id, api: api, response: response };

  // the page's first photo: the primary one among `images`, else the first by order, else primary_image
  function mainPhoto(v) {
    var list = (Array.isArray(v.images) ? v.images : []).filter(function (x) {
      return x && typeof x.url === 'string';
    });
    list.sort(function (a, b) {
      return Number(!!b.is_primary) - Number(!!a.is_primary) || (a.order || 0) - (b.order || 0);
    });
    return list.length ? list[0].url : v.primary_image || null;
  }
  // the server-made thumbnail the page shows (thumbnailUrl in src/lib/format.ts, at 1200 x 720)
  function thumbnail(url) {
    var t = /^(.*)\/storage\/v1\/object\/public\/([^?#]+\.(?:jpe?g|png|webp|gif))$/i.exec(url);
    return t ? t[1] + '/storage/v1/render/image/public/' + t[2] + '?width=1200&height=720&resize=cover&quality=75' : url;
  }
})();
