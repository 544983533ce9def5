/* api.js - the browser build's page side (emcc --pre-js): window.stepformer,
 * the JS API for course pages (README "In the browser"), lesson progress kept
 * in IndexedDB, opening one's own .safetensors from a file picker
 * (Ctrl+O, or stepformer.pickFile()) or by dropping it on the page, and
 * the browser's clipboard pasted into the window (copies go out through
 * plat_web.c). */
(function () {
  var sf = window.stepformer = window.stepformer || {};
  sf.ready = false;
  function c(name, ret, types, args) {
    if (!sf.ready) throw new Error('stepformer: not ready yet (wait for stepformer.ready)');
    return Module.ccall(name, ret, types, args);
  }
  function head(h) { return h === undefined || h === null ? -2 : h | 0; }
  sf.setSource = function (text) { c('sf_set_source', null, ['string'], [String(text)]); };
  sf.setTarget = function (text) { c('sf_set_target', null, ['string'], [String(text)]); };
  sf.setStage = function (name, layer, h) {
    return c('sf_set_stage', 'number', ['string', 'number', 'number'], [String(name), layer | 0, head(h)]) === 0;
  };
  sf.setLang = function (lang) { return c('sf_set_lang', 'number', ['string'], [String(lang)]) === 0; };
  sf.openLesson = function (id, step) {
    return c('sf_open_lesson', 'number', ['string', 'number'], [String(id), step === undefined ? 1 : step | 0]) === 0;
  };
  /* the same object `stepformer dump --format json` prints */
  sf.dump = function (stage, layer, h) {
    var o = JSON.parse(c('sf_dump', 'string', ['string', 'number', 'number'], [String(stage), layer | 0, head(h)]));
    if (o.error) throw new Error('stepformer: ' + o.error);
    return o;
  };
  /* the notice line and the Train tab's step: {notice, notice_error, train_step, train_state} */
  sf.state = function () { return JSON.parse(c('sf_state', 'string', [], [])); };
  sf.link = function () { return c('sf_link', 'string', [], []); };
  /* a link's fields applied to the open page (as when the address changes) */
  sf.applyLink = function (frag) {
    return c('sf_apply_link', 'number', ['string'], [String(frag).replace(/^#/, '')]) === 0;
  };
  /* a File (from a picker or a drop) opened as the model */
  sf.openFile = function (file) {
    return file.arrayBuffer().then(function (buf) {
      var name = '/uploads/' + file.name.replace(/[^A-Za-z0-9._-]/g, '_');
      try { FS.mkdir('/uploads'); } catch (e) { /* there already */ }
      FS.writeFile(name, new Uint8Array(buf));
      var ok = c('sf_open_model', 'number', ['string'], [name]) === 0;
      sf.lastOpen = { name: file.name, ok: ok };
      return ok;
    });
  };
  /* the median milliseconds of a frame of the current view, over n drawn back to back
   * (headless: into SDL's software renderer off screen at 1920x1080, as `stepformer bench` draws) */
  sf.benchFrames = function (n, headless) {
    return c('sf_bench_frames', 'number', ['number', 'number'], [n || 60, headless ? 1 : 0]);
  };
  sf.pickFile = function () { document.getElementById('pick').click(); };

  var pasteTimer = null, pasteShift = 0;
  function paste(text) {
    if (sf.ready) c('sf_paste', null, ['string', 'number'], [text, pasteShift]);
    pasteShift = 0;
  }

  function hook() {
    var pick = document.getElementById('pick');
    if (pick) pick.addEventListener('change', function () { if (pick.files[0]) sf.openFile(pick.files[0]); pick.value = ''; });
    window.addEventListener('hashchange', function () { if (sf.ready) sf.applyLink(window.location.hash); });
    window.addEventListener('dragover', function (e) { e.preventDefault(); });
    window.addEventListener('drop', function (e) {
      e.preventDefault();
      var f = e.dataTransfer && e.dataTransfer.files[0];
      if (f) sf.openFile(f);
    });
    window.addEventListener('keydown', function (e) {
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && (e.key === 'o' || e.key === 'O')) { e.preventDefault(); sf.pickFile(); }
      /* Ctrl+V: SDL would prevent the key's default, and so the browser's
       * paste with the clipboard's text; it goes by the paste event instead
       * (below), or, when none comes, as the key alone (the window's own
       * clipboard) */
      if (e.ctrlKey && !e.altKey && !e.metaKey && e.code === 'KeyV') {
        e.stopImmediatePropagation();
        pasteShift = e.shiftKey ? 1 : 0;
        clearTimeout(pasteTimer);
        pasteTimer = setTimeout(function () { pasteTimer = null; paste(null); }, 250);
      }
    }, true);
    document.addEventListener('paste', function (e) {
      e.preventDefault();
      clearTimeout(pasteTimer);
      pasteTimer = null;
      paste(e.clipboardData ? e.clipboardData.getData('text/plain') : null);
    });
    var prev = sf.onready;
    sf.onready = function () {
      var s = document.getElementById('status');
      if (s) s.remove();
      if (prev) prev();
    };
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', hook); else hook();

  /* a file the window saved (PNG, CSV): handed to the user as a download */
  Module['stepformerDownload'] = function (path, name) {
    var data = FS.readFile(path);
    var type = /\.png$/i.test(name) ? 'image/png' : /\.csv$/i.test(name) ? 'text/csv' : 'application/octet-stream';
    var url = URL.createObjectURL(new Blob([data], { type: type }));
    var a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
    sf.lastDownload = name;
  };

  /* lesson progress: /persist is IndexedDB, read before main, written back
   * soon after input changed something (and when the page is hidden) */
  var timer = null;
  function persist() {
    timer = null;
    FS.syncfs(false, function (err) { if (err) console.warn('stepformer: progress not kept: ' + err); });
  }
  Module['stepformerPersist'] = function () { if (!timer) timer = setTimeout(persist, 1000); };
  document.addEventListener('visibilitychange', function () { if (document.hidden) persist(); });
  Module['preRun'] = (Module['preRun'] || []).concat([function () {
    FS.mkdir('/persist');
    FS.mount(IDBFS, {}, '/persist');
    addRunDependency('stepformer-idbfs');
    FS.syncfs(true, function (err) {
      if (err) console.warn('stepformer: no saved progress: ' + err);
      removeRunDependency('stepformer-idbfs');
    });
  }]);
})();
