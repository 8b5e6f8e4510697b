/* Run after RequireJS, before the ipywidgets embedder (see nb_ipywidgets_js in _config.yml).
 *
 * The embedder (vendor/html-manager/embed-amd.js) defines its AMD modules inline and finds
 * its fonts next to the URL RequireJS gives each module. Without this, RequireJS puts those
 * URLs next to the page, and the fonts 404. Point every module at the vendored directory.
 */
(function () {
  "use strict";
  var staticDir = document.currentScript.src.replace(/[^/]*$/, "");
  var dir = staticDir + "vendor/html-manager/";
  var ids = ["base", "controls", "base7", "controls7", "output", "html-manager",
    "html-manager/dist/libembed-amd"];
  var paths = {};
  ids.forEach(function (id) { paths["@jupyter-widgets/" + id] = dir + id.split("/").pop(); });
  window.require.config({ paths: paths });
})();
