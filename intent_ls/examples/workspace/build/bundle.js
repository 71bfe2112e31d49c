console.log("built");
