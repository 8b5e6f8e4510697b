/*
 * The roofline course's JupyterLab plugin: nbgrader's Validate button on the exercises only.
 *
 * nbgrader adds its Validate button to every notebook, and jupytext hands the same toolbar to the
 * chapters it opens as notebooks, where Validate has nothing to check. This plugin marks each
 * notebook that holds no nbgrader cell (a chapter, a student's own notebook) once it is read, and
 * its style hides Validate there; an exercise keeps it.
 *
 * JupyterLab loads a prebuilt extension as a webpack module-federation container: it runs this
 * file, calls window._JUPYTERLAB["roofline-course"].init(shareScope), then get("./extension")
 * for the module whose export is the list of plugins (jupyterlab/staging/bootstrap.js and
 * index.js). The plugin uses only the application object JupyterLab hands it, none of
 * JupyterLab's packages, so the container is written here by hand, with nothing to build.
 */
(function () {
  "use strict";

  var NAME = "roofline-course";
  var NOT_AN_EXERCISE = "rk-mod-not-an-exercise";

  function isExercise(model) {
    return (model.toJSON().cells || []).some(function (cell) {
      return Boolean(cell.metadata && cell.metadata.nbgrader);
    });
  }

  var validateOnExercises = {
    id: NAME + ":validate-on-exercises",
    description: "Shows nbgrader's Validate button on the course's exercises only.",
    autoStart: true,
    activate: function (app) {
      var style = document.createElement("style");
      style.textContent = "." + NOT_AN_EXERCISE + " .validate-button { display: none; }";
      document.head.appendChild(style);
      app.docRegistry.addWidgetExtension("Notebook", {
        createNew: function (panel, context) {
          panel.addClass(NOT_AN_EXERCISE); // until the notebook is read
          context.ready.then(function () {
            panel.toggleClass(NOT_AN_EXERCISE, !isExercise(context.model));
          });
        },
      });
    },
  };

  var plugins = { __esModule: true, default: [validateOnExercises] };
  var containers = (window._JUPYTERLAB = window._JUPYTERLAB || {});
  containers[NAME] = {
    init: function () {}, // it shares no package, so it takes none from the share scope
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error(NAME + " has no module " + module));
      }
      return Promise.resolve(function () {
        return plugins;
      });
    },
  };
})();
